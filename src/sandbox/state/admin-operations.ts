import type { Behaviour } from '../model/behaviours.ts';
import type { DeviceCondition } from '../model/lifecycle.ts';
import { SandboxError } from '../sandbox-error.ts';
import { advanceDueCommands } from './due-transitions.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

export interface DeviceConditionView {
  deviceId: string;
  online: boolean;
  fault: boolean;
  behaviour: Behaviour;
}

/** Forward only. @throws SandboxError 400 when `targetMs` is in the sandbox's past. */
export function moveClock(memory: StateMemory, targetMs: number, change: StateChange): number {
  memory.clock.moveTo(targetMs);
  change.clockOffsetMs = memory.clock.offsetMs;
  advanceDueCommands(memory, change);
  return memory.clock.now();
}

/**
 * The caller has run the transitions due under the old condition; those the new one causes run
 * here. A behaviour is kept in memory only and applies to the device's whole telemetry
 * (src/sandbox/README.md, Behaviours). @throws SandboxError 404 for a device not in the fixture.
 */
export function setDeviceCondition(
  memory: StateMemory,
  deviceId: string,
  update: {
    online?: boolean | undefined;
    fault?: boolean | undefined;
    behaviour?: Behaviour | undefined;
  },
  change: StateChange,
): DeviceConditionView {
  const device = memory.catalog.device(deviceId);
  if (!device) throw new SandboxError('NOT_FOUND', `Device ${deviceId} is not in the fixture`);
  if (update.behaviour !== undefined) {
    memory.telemetry.setBehaviour(device, update.behaviour);
    memory.active.scanAllNextTime();
  }
  const current = memory.conditions.of(device);
  const next: DeviceCondition = {
    online: update.online ?? current.online,
    fault: update.fault ?? current.fault,
    sinceMs: memory.clock.now(),
  };
  if (next.online !== current.online || next.fault !== current.fault) {
    memory.conditions.set(deviceId, next);
    memory.active.scanAllNextTime();
    change.deviceConditions.push({ deviceId, ...next });
    advanceDueCommands(memory, change);
  }
  return {
    deviceId,
    online: next.online,
    fault: next.fault,
    behaviour: memory.telemetry.behaviourOf(device),
  };
}
