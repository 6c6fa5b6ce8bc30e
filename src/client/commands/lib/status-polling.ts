import { isFinalStatus, type CommandStatus } from '#domain/command.ts';
import type { ApiError } from '../../lib/api-error.ts';

/** Poll interval of a command not final (docs/upstream.md, Status record). */
export const STATUS_POLL_MS = 2_000;

/** Next poll, or `false`: a final status never changes (docs/upstream.md, Lifecycle); a 4xx but 429 will not pass. */
export function nextStatusPollMs(
  status: CommandStatus | undefined,
  error: ApiError | null,
): number | false {
  if (status !== undefined && isFinalStatus(status)) return false;
  if (error && error.status >= 400 && error.status < 500 && error.status !== 429) return false;
  return STATUS_POLL_MS;
}
