import { useQueries } from '@tanstack/react-query';
import { queuedChangeQueryOptions } from '../api/queued-changes.ts';
import { queuedLineWords, type QueuedLine } from '../lib/queued.ts';

/**
 * A queued change's line, following it live (docs/decisions/007, sections 2 and 4): re-read on each
 * pushed `queuedChangeChanged` until sent, refused or withdrawn. Undefined without a line.
 */
export function useQueuedLineWords(line: QueuedLine | undefined): string | undefined {
  return useQueuedLinesWords(line ? [line] : NO_LINES)[0];
}

const NO_LINES: readonly QueuedLine[] = [];

/** {@link useQueuedLineWords} for several lines at once (e.g. a paste's copies), in order. */
export function useQueuedLinesWords(lines: readonly QueuedLine[]): string[] {
  return useQueries({
    queries: lines.map((line) => queuedChangeQueryOptions(line.queued.changeId)),
    combine: (changes) => lines.map((line, i) => queuedLineWords(line, changes[i]?.data)),
  });
}

/** A queued change's line as text: the one place every screen says what became of a change it queued. */
export function QueuedChangeLine(props: QueuedLine) {
  return <>{useQueuedLineWords(props)}</>;
}
