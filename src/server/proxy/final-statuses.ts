import { isFinalStatus, StatusRecordSchema } from '../../domain/command.ts';
import type { SharedAnswer } from './coalescer.ts';

/** How many final status answers one BFF keeps (about 0.5 KiB each). */
export const FINAL_STATUS_CAPACITY = 10_000;

/** Only the field the BFF needs: the rest of the record passes through unparsed (DESIGN.md 5). */
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
  readonly #answers = new Map<string, SharedAnswer>();
  readonly #capacity: number;

  constructor(capacity = FINAL_STATUS_CAPACITY) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#answers.size;
  }

  get(key: string): SharedAnswer | undefined {
    const answer = this.#answers.get(key);
    if (answer === undefined) return undefined;
    // Re-insert: a Map iterates in insertion order, so the oldest key is the least recently used.
    this.#answers.delete(key);
    this.#answers.set(key, answer);
    return answer;
  }

  /**
   * Keeps `answer` when it is final ({@link isFinalStatusAnswer}) and the capacity is not 0;
   * returns whether it did.
   */
  rememberIfFinal(key: string, answer: SharedAnswer): boolean {
    if (this.#capacity === 0 || !isFinalStatusAnswer(answer)) return false;
    const contentType = answer.headers['content-type'];
    // Only what sendShared reads: the upstream's other headers are not worth keeping.
    const kept: SharedAnswer = {
      status: answer.status,
      headers: contentType === undefined ? {} : { 'content-type': contentType },
      body: answer.body,
    };
    this.#answers.delete(key);
    this.#answers.set(key, kept);
    if (this.#answers.size > this.#capacity) {
      const oldest = this.#answers.keys().next();
      if (!oldest.done) this.#answers.delete(oldest.value);
    }
    return true;
  }

  /** Drops every answer whose key starts with `prefix` (one client's answers). */
  forgetPrefix(prefix: string): void {
    for (const key of this.#answers.keys()) if (key.startsWith(prefix)) this.#answers.delete(key);
  }
}
