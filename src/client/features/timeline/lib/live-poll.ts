import { isFinalStatus } from '#domain/command.ts';
import type { HistoryResponse } from '#domain/history.ts';

/** How often a history slot holding a non-final command is read again while its row is in view. */
export const LIVE_POLL_MS = 3_000;

/**
 * Poll interval of a history slot: {@link LIVE_POLL_MS} while a command may still change
 * (docs/upstream.md, Lifecycle), never once all are final.
 */
export function liveSlotPollMs(slot: HistoryResponse | undefined): number | false {
  return slot?.commands.some((command) => !isFinalStatus(command.status)) ? LIVE_POLL_MS : false;
}
