import { LRUCache } from 'lru-cache';
import { isFinalStatus, type StatusRecord } from '../../domain/command.ts';

/** How many final status records one BFF keeps (about 0.5 KiB each). */
export const FINAL_STATUS_CAPACITY = 10_000;

/**
 * Final status records (completed or cancelled) by key, least recently used evicted first once
 * `capacity` is reached. A final status never changes again (docs/upstream.md, Lifecycle), so
 * such a record is served from memory for good. Keys carry who asked (region and client), so one
 * client never gets another's record.
 */
export class FinalStatuses {
  readonly #records: LRUCache<string, StatusRecord> | undefined;

  constructor(capacity = FINAL_STATUS_CAPACITY) {
    // lru-cache refuses max 0; capacity 0 (STATUS_REUSE_MS=0) means keep nothing.
    this.#records = capacity > 0 ? new LRUCache({ max: capacity }) : undefined;
  }

  get size(): number {
    return this.#records?.size ?? 0;
  }

  get(key: string): StatusRecord | undefined {
    return this.#records?.get(key);
  }

  /** Keeps `record` when it is final and the capacity is not 0; returns whether it did. */
  rememberIfFinal(key: string, record: StatusRecord): boolean {
    if (!this.#records || !isFinalStatus(record.status)) return false;
    this.#records.set(key, record);
    return true;
  }

  /** Drops every record whose key starts with `prefix` (one client's records). */
  forgetPrefix(prefix: string): void {
    if (!this.#records) return;
    for (const key of [...this.#records.keys()])
      if (key.startsWith(prefix)) this.#records.delete(key);
  }
}
