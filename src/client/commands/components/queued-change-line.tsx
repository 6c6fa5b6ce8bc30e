import { useQuery } from '@tanstack/react-query';
import { queuedChangeQueryOptions } from '../api/queued-changes.ts';
import { queuedLineWords, type QueuedLine } from '../lib/queued.ts';

/**
 * The words of a queued change's line, following the change live (docs/decisions/007, sections 2
 * and 4): read from `GET /api/changes/{changeId}` and read again at each pushed
 * `queuedChangeChanged`, so the screen that said "not sent yet" says sent, refused (with the
 * vendor's reason in words) or withdrawn once it is. Undefined without a line.
 */
export function useQueuedLineWords(line: QueuedLine | undefined): string | undefined {
  const change = useQuery({
    ...queuedChangeQueryOptions(line?.queued.changeId ?? ''),
    enabled: line !== undefined,
  });
  return line ? queuedLineWords(line, change.data) : undefined;
}

/**
 * A queued change's line as text (inside a screen's status paragraph): the one place the device
 * form, the timeline and the batch composer say what became of a change they queued.
 */
export function QueuedChangeLine(props: QueuedLine) {
  return <>{useQueuedLineWords(props)}</>;
}
