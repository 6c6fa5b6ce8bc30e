import { isFinalStatus } from '../../../../domain/command.ts';
import type { HistoryResponse } from '../../../../domain/history.ts';

/** How often a history slot holding a non-final command is read again while its row is in view. */
export const LIVE_POLL_MS = 3_000;

/**
 * The timeline's poll of a history slot: every {@link LIVE_POLL_MS} while it holds a received or
 * executing command (docs/upstream.md, Lifecycle: it can still change), never once all are final.
 * TanStack Query pauses the interval in background tabs, so hidden tabs cost the upstream nothing.
 */
export function liveSlotPollMs(slot: HistoryResponse | undefined): number | false {
  return slot?.commands.some((command) => !isFinalStatus(command.status)) ? LIVE_POLL_MS : false;
}
