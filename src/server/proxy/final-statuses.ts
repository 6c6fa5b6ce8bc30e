import { LRUCache } from 'lru-cache';
import { isFinalStatus, StatusRecordSchema } from '../../domain/command.ts';
import type { SharedAnswer } from './coalescer.ts';

/** How many final status answers one BFF keeps (about 0.5 KiB each). */
export const FINAL_STATUS_CAPACITY = 10_000;

/**
 * Only the field the BFF needs: the rest of the record passes through unparsed
 * (docs/architecture.md, Budgets).
 */
const StatusFieldSchema = StatusRecordSchema.pick({ status: true });

/**
 * Whether a status answer is a 200 whose record is final (completed or cancelled). A final
 * status never changes again (spec 3.1), so such an answer can be served from memory for good.
 * Unreadable bodies are not final: they are simply fetched again.
 */
export function isFinalStatusAnswer(answer: SharedAnswer): boolean {
  if (answer.status !== 200) return false;
  // Most polls are of active commands: skip parsing a body that cannot hold a final status.
  if (!answer.body.includes('"completed"') && !answer.body.includes('"cancelled"')) return false;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return false;
  }
  const parsed = StatusFieldSchema.safeParse(body);
  return parsed.success && isFinalStatus(parsed.data.status);
}

/**
 * Final status answers by key, least recently used evicted first once `capacity` is reached.
 * Keys carry who asked (region and client), so one client never gets another's record.
 */
export class FinalStatuses {
  readonly #answers: LRUCache<string, SharedAnswer> | undefined;

  constructor(capacity = FINAL_STATUS_CAPACITY) {
    // lru-cache refuses max 0; capacity 0 (STATUS_REUSE_MS=0) means keep nothing.
    this.#answers = capacity > 0 ? new LRUCache({ max: capacity }) : undefined;
  }

  get size(): number {
    return this.#answers?.size ?? 0;
  }

  get(key: string): SharedAnswer | undefined {
    return this.#answers?.get(key);
  }

  /**
   * Keeps `answer` when it is final ({@link isFinalStatusAnswer}) and the capacity is not 0;
   * returns whether it did.
   */
  rememberIfFinal(key: string, answer: SharedAnswer): boolean {
    if (!this.#answers || !isFinalStatusAnswer(answer)) return false;
    const contentType = answer.headers['content-type'];
    // Only what sendShared reads: the upstream's other headers are not worth keeping.
    this.#answers.set(key, {
      status: answer.status,
      headers: contentType === undefined ? {} : { 'content-type': contentType },
      body: answer.body,
    });
    return true;
  }

  /** Drops every answer whose key starts with `prefix` (one client's answers). */
  forgetPrefix(prefix: string): void {
    if (!this.#answers) return;
    for (const key of [...this.#answers.keys()])
      if (key.startsWith(prefix)) this.#answers.delete(key);
  }
}
