import type { HistoryQuery } from '../../domain/history.ts';
import { toWindowMs } from '../../domain/time-window.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import { accessibleDevice } from './device-access.ts';
import type { StateMemory } from './state-memory.ts';

/**
 * A command of a device (spec 2.4), active from memory, final from the store. A command of
 * another device is unknown (README "Status").
 * @throws SandboxError 404/403 for the device, 404 `not_found` for the command.
 */
export async function findClientCommand(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  commandId: string,
): Promise<CommandEntity> {
  accessibleDevice(memory.catalog, memory.bindings, client, deviceId);
  const command = memory.active.get(commandId) ?? (await memory.persistence.findCommand(commandId));
  if (!command || command.deviceId !== deviceId)
    throw new SandboxError(
      'not_found',
      `Command ${commandId} is not known for device ${deviceId}; use the id the submission answered`,
      { deviceId, commandId },
    );
  return command;
}

/**
 * Commands of a device whose window intersects the half-open query range `[startTime, endTime)`, by
 * start time, optionally of one status (docs/architecture.md, Upstream contract: History); read
 * from the store, which every earlier change has reached.
 * @throws SandboxError 404/403 for the device.
 */
export async function commandHistory(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  query: HistoryQuery,
): Promise<CommandEntity[]> {
  accessibleDevice(memory.catalog, memory.bindings, client, deviceId);
  return memory.persistence.history({ deviceId, ...toWindowMs(query), status: query.status });
}
