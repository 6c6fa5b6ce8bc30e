import type { DeviceCommand } from '../../domain/command.ts';
import type { WindowOverlapDetails } from '../../domain/errors.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import { accessibleDevice } from './device-access.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';
import { newCommand, refuseEndedWindow, refuseOutOfRange } from './submission-rules.ts';

/**
 * Accepts one command as `received` (spec 3.1 row 1) and records it in `change`. Checks, in this
 * order: device (404, 403), ended window (400), capability range (422), then overlap with a
 * received or executing command of the device (spec 3.1 rule 2: refused, never replaced).
 * @throws SandboxError 404/403, 400, 422, 409 `window_overlap` whose `details` are
 *   {@link WindowOverlapDetails} (the domain's schema of them).
 */
export function submitCommand(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  command: DeviceCommand,
  change: StateChange,
): CommandEntity {
  const device = accessibleDevice(memory.catalog, memory.bindings, client, deviceId);
  const nowMs = memory.clock.now();
  refuseEndedWindow(command, nowMs);
  refuseOutOfRange(device, command);
  const overlap = memory.active.overlapOf(deviceId, command);
  if (overlap)
    throw new SandboxError(
      'window_overlap',
      `The window overlaps command ${overlap.id} of device ${deviceId} (${overlap.startTime} to ${overlap.endTime}); cancel it first or choose a window that does not overlap`,
      {
        conflictingCommandId: overlap.id,
        startTime: overlap.startTime,
        endTime: overlap.endTime,
      } satisfies WindowOverlapDetails,
    );
  const entity = newCommand(deviceId, command, nowMs);
  memory.active.put(entity, change);
  return entity;
}
