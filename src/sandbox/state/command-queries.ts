import type { CommandEntity } from '../model/command-entity.ts';
import { notFoundOrNotYours } from '../sandbox-error.ts';
import type { HistoryQuery } from '../vendor/schemas.ts';
import type { ClientIdentity } from './client-identity.ts';
import { deviceForCall } from './device-access.ts';
import type { StateMemory } from './state-memory.ts';

/**
 * A command of a device, active from memory, final from the store. A command of another device
 * is unknown (docs/upstream.md, Status record). Takes a slot of the device's rate limit (status
 * and cancel; docs/upstream.md, Rate limit).
 * @throws SandboxError 404 `NOT_FOUND` for a device or command not found or not yours;
 *   RateLimitError 429 when the device (found and yours) has no slot left.
 */
export async function findClientCommand(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  commandId: string,
): Promise<CommandEntity> {
  deviceForCall(memory, client, deviceId);
  const command = memory.active.get(commandId) ?? (await memory.persistence.findCommand(commandId));
  if (!command || command.deviceId !== deviceId)
    throw notFoundOrNotYours(`Command ${commandId} of device ${deviceId}`);
  return command;
}

/** One page of a device's history and the number of commands on all pages. */
export interface HistorySlice {
  total: number;
  commands: CommandEntity[];
}

/**
 * The page `query.page` (of `query.size`) of the commands of a device whose window intersects
 * the half-open range `[startTime, endTime)`, by start time, optionally of one status
 * (docs/upstream.md, History); read from the store, which every earlier change has reached. Takes
 * a slot of the device's rate limit (docs/upstream.md, Rate limit).
 * @throws SandboxError 404 `NOT_FOUND` for a device not found or not yours; RateLimitError 429
 *   when it has no slot left.
 */
export async function commandHistory(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  query: HistoryQuery,
): Promise<HistorySlice> {
  deviceForCall(memory, client, deviceId);
  const all = await memory.persistence.history({
    deviceId,
    startMs: Date.parse(query.startTime),
    endMs: Date.parse(query.endTime),
    status: query.status,
  });
  const from = (query.page - 1) * query.size;
  return { total: all.length, commands: all.slice(from, from + query.size) };
}
