import { useQueries } from '@tanstack/react-query';
import { queuedChangeQueryOptions } from '../api/queued-changes.ts';
import { queuedLineWords, type QueuedLine } from '../lib/queued.ts';

/**
 * The words of a queued change's line, following the change live (docs/decisions/007, sections 2
 * and 4): read from `GET /api/changes/{changeId}` and read again at each pushed
 * `queuedChangeChanged`, so the screen that said "not sent yet" says sent, refused (with the
 * vendor's reason in words) or withdrawn once it is. Undefined without a line.
 */
export function useQueuedLineWords(line: QueuedLine | undefined): string | undefined {
  return useQueuedLinesWords(line ? [line] : NO_LINES)[0];
}

const NO_LINES: readonly QueuedLine[] = [];

/**
 * The words of several queued changes' lines, in their order, each following its change live as
 * {@link useQueuedLineWords} does: for a screen that queued several at once (the timeline's copies
 * of a window, one change per copy).
 */
export function useQueuedLinesWords(lines: readonly QueuedLine[]): string[] {
  return useQueries({
    queries: lines.map((line) => queuedChangeQueryOptions(line.queued.changeId)),
    combine: (changes) => lines.map((line, i) => queuedLineWords(line, changes[i]?.data)),
  });
}

/**
 * A queued change's line as text (inside a screen's status paragraph): the one place the device
 * form, the timeline and the batch composer say what became of a change they queued.
 */
export function QueuedChangeLine(props: QueuedLine) {
  return <>{useQueuedLineWords(props)}</>;
}
