import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import { isActiveStatus } from '../vendor/schemas.ts';
import type { ClientIdentity } from './client-identity.ts';
import { findClientCommand } from './command-queries.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

/**
 * Cancels a received or executing command with `manuallyCancel` and records it in `change`;
 * returns the updated command (docs/upstream.md, Commands).
 * @throws SandboxError 404 `NOT_FOUND`, 409 `COMMAND_NOT_CANCELLABLE` when completed or already
 *   cancelled.
 */
export async function cancelCommand(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  commandId: string,
  change: StateChange,
): Promise<CommandEntity> {
  const command = await findClientCommand(memory, client, deviceId, commandId);
  if (!isActiveStatus(command.status)) throw notCancellable(command);
  const cancelled = manuallyCancelled(command, memory.clock.now());
  memory.active.put(cancelled, change);
  return cancelled;
}

/** The command cancelled by its client at `nowMs` (`manuallyCancel`). */
export function manuallyCancelled(command: CommandEntity, nowMs: number): CommandEntity {
  return { ...command, status: 'cancelled', cancelledAtMs: nowMs, cancelReason: 'manuallyCancel' };
}

/** Why a final command cannot be cancelled, in words: completed, or cancelled already. */
export function whyNotCancellable(command: CommandEntity): string {
  return command.status === 'completed'
    ? `Command ${command.id} is completed; a completed command cannot be cancelled`
    : `Command ${command.id} was already cancelled (${command.cancelReason ?? 'no reason'}) and cannot be cancelled again`;
}

/** The 409 `COMMAND_NOT_CANCELLABLE` for a final command, saying why. */
export function notCancellable(command: CommandEntity): SandboxError {
  return new SandboxError('COMMAND_NOT_CANCELLABLE', whyNotCancellable(command));
}
