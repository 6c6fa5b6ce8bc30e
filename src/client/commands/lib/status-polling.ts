import { isFinalStatus, type CommandStatus } from '../../../domain/command.ts';
import type { ApiError } from '../../lib/api-error.ts';

/**
 * How often a command that is not final is polled (docs/upstream.md, Status record: progress is
 * polled).
 */
export const STATUS_POLL_MS = 2_000;

/**
 * Next poll of a command, or `false` to stop: a final status never changes again (docs/upstream.md,
 * Lifecycle), and a refusal (4xx but 429: unbound site, unknown command) will not pass by asking
 * again.
 */
export function nextStatusPollMs(
  status: CommandStatus | undefined,
  error: ApiError | null,
): number | false {
  if (status !== undefined && isFinalStatus(status)) return false;
  if (error && error.status >= 400 && error.status < 500 && error.status !== 429) return false;
  return STATUS_POLL_MS;
}
