import { isActiveStatus } from '../../domain/command.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import { findClientCommand } from './command-queries.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

/**
 * Cancels a received or executing command with `manuallyCancel` (spec 3.1 rows 4-5, 3.2) and
 * records it in `change`; returns the updated command.
 * @throws SandboxError 404/403, 409 `not_cancellable` when completed (spec 3.1 rule 1) or
 *   already cancelled.
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

/** The command cancelled by its client at `nowMs` (spec 3.2 `manuallyCancel`). */
export function manuallyCancelled(command: CommandEntity, nowMs: number): CommandEntity {
  return { ...command, status: 'cancelled', cancelledAtMs: nowMs, cancelReason: 'manuallyCancel' };
}

/**
 * The 409 `not_cancellable` for a final command, saying why: completed (spec 3.1 rule 1) or
 * already cancelled (README "Cancel").
 */
export function notCancellable(command: CommandEntity): SandboxError {
  const why =
    command.status === 'completed'
      ? 'a completed command cannot be cancelled'
      : `it was already cancelled (${command.cancelReason ?? 'no reason'}) and cannot be cancelled again`;
  return new SandboxError('not_cancellable', `Command ${command.id} is ${command.status}; ${why}`, {
    commandId: command.id,
    status: command.status,
  });
}
