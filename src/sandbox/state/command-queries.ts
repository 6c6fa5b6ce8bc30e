import type { CommandEntity } from '../model/command-entity.ts';
import { notFoundOrNotYours } from '../sandbox-error.ts';
import type { HistoryQuery } from '../vendor/schemas.ts';
import type { ClientIdentity } from './client-identity.ts';
import { deviceForCall } from './device-access.ts';
import type { StateMemory } from './state-memory.ts';

/** Active from memory, final from the store. @throws SandboxError 404; RateLimitError 429. */
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

export interface HistorySlice {
  total: number;
  commands: CommandEntity[];
}

/** From the store, which every earlier change has reached. @throws SandboxError 404; 429. */
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
