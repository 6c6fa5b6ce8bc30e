import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { CommandRequest } from '../vendor/schemas.ts';
import type { ClientIdentity } from './client-identity.ts';
import { deviceForCall } from './device-access.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';
import { newCommand, refuseEndedWindow, refuseOutOfRange } from './submission-rules.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Accepts one command as `received` and records it in `change` (docs/upstream.md, Commands).
 * Checks, in this order: device (404, not found or not yours), the device's rate limit (429,
 * docs/upstream.md, Rate limit), ended window (400), capability range (422), then overlap with a
 * received or executing command of the device: refused at once, never replaced
 * (docs/upstream.md, Decisions).
 * @throws SandboxError 404 `NOT_FOUND`, RateLimitError 429, 400 `INVALID_REQUEST`, 422
 *   `CAPABILITY_EXCEEDED`, 409 `TIME_WINDOW_OVERLAP` whose message names the command in the way
 *   and its window.
 */
export function submitCommand(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  command: CommandRequest,
  change: StateChange,
): CommandEntity {
  const device = deviceForCall(memory, client, deviceId);
  const nowMs = memory.clock.now();
  refuseEndedWindow(command, nowMs);
  refuseOutOfRange(device, command);
  const overlap = memory.active.overlapOf(deviceId, command);
  if (overlap)
    throw new SandboxError(
      'TIME_WINDOW_OVERLAP',
      `The window overlaps command ${overlap.id} of device ${deviceId} (${iso(overlap.startMs)} to ${iso(overlap.endMs)}, ${overlap.status}); cancel it first or choose a window that does not overlap`,
    );
  const entity = newCommand(deviceId, command, nowMs);
  memory.active.put(entity, change);
  return entity;
}
