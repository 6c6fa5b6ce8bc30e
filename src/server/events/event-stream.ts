import { PassThrough } from 'node:stream';
import type { PushControlType } from '#domain/account-events.ts';
import type { StoredEvent } from './event-store.ts';
import { accountKey, type Account } from '#domain/account.ts';

/**
 * Past it the stream is closed and the browser resumes with `Last-Event-ID`, so a slow reader
 * costs a reconnect, never the BFF's memory. About a thousand events.
 */
export const MAX_STREAM_BUFFER_BYTES = 256 * 1024;

/** More make it resync. */
const MAX_HELD_WHILE_REPLAYING = 1000;

export type StreamCloseReason = 'client' | 'sessionEnded' | 'slowReader' | 'shutdown' | 'failed';

/**
 * One open `GET /api/events` (docs/architecture.md, Live updates). Events arriving during the
 * replay are held, then sent in order; an event is never sent twice (IDs only grow).
 */
export class EventStream {
  /** Fastify pipes it to the socket, so every hook and header applies. */
  readonly body = new PassThrough();
  readonly account: Account;
  readonly accountKey: string;
  readonly person: string;
  readonly sessionHash: string;
  sessionDeadlineMs: number;
  lastSentId = 0;
  closeReason: StreamCloseReason | undefined;
  readonly #onClose: (stream: EventStream) => void;
  #replaying = true;
  #held: StoredEvent[] = [];
  #heldOverflow = false;

  constructor(input: {
    account: Account;
    person: string;
    sessionHash: string;
    sessionDeadlineMs: number;
    onClose: (stream: EventStream) => void;
  }) {
    this.account = input.account;
    this.accountKey = accountKey(input.account);
    this.person = input.person;
    this.sessionHash = input.sessionHash;
    this.sessionDeadlineMs = input.sessionDeadlineMs;
    this.#onClose = input.onClose;
    this.body.on('close', () => this.close('client'));
    this.body.on('error', () => this.close('failed'));
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  get replaying(): boolean {
    return this.#replaying;
  }

  isFor(stored: StoredEvent): boolean {
    return stored.recipient === null || stored.recipient === this.person;
  }

  sendRetry(retryMs: number): void {
    this.#write(`retry: ${Math.round(retryMs)}\n\n`);
  }

  deliver(stored: StoredEvent): void {
    if (this.closed || !this.isFor(stored)) return;
    if (!this.#replaying) return this.send(stored);
    if (this.#held.length >= MAX_HELD_WHILE_REPLAYING) this.#heldOverflow = true;
    else this.#held.push(stored);
  }

  send(stored: StoredEvent): void {
    if (stored.id <= this.lastSentId || !this.isFor(stored)) return;
    this.lastSentId = stored.id;
    const message = {
      id: String(stored.id),
      type: stored.event.type,
      data: stored.event.data,
      createdAt: new Date(stored.createdAtMs).toISOString(),
    };
    this.#write(`id: ${stored.id}\ndata: ${JSON.stringify(message)}\n\n`);
  }

  sendControl(type: PushControlType, id?: number): void {
    if (id !== undefined) this.lastSentId = Math.max(this.lastSentId, id);
    const idLine = id === undefined ? '' : `id: ${id}\n`;
    const message = id === undefined ? { type } : { type, id: String(id) };
    this.#write(`${idLine}data: ${JSON.stringify(message)}\n\n`);
  }

  /** More than could be held: the browser is told to resync instead. */
  finishReplay(headId: number): void {
    if (!this.#replaying) return;
    this.#replaying = false;
    const held = this.#held.sort((a, b) => a.id - b.id);
    this.#held = [];
    if (this.#heldOverflow) this.sendControl('resync', Math.max(headId, held.at(-1)?.id ?? 0));
    else for (const stored of held) this.send(stored);
    this.sendControl('ready', this.lastSentId);
  }

  /** Keeps proxies from closing an idle stream. */
  heartbeat(): void {
    this.#write(': heartbeat\n\n');
  }

  /** Idempotent. */
  close(reason: StreamCloseReason): void {
    if (this.closed) return;
    this.closeReason = reason;
    this.#held = [];
    if (reason === 'slowReader' || reason === 'failed') this.body.destroy();
    else this.body.end();
    this.#onClose(this);
  }

  #write(text: string): void {
    if (this.closed) return;
    this.body.write(text);
    if (this.body.writableLength + this.body.readableLength > MAX_STREAM_BUFFER_BYTES)
      this.close('slowReader');
  }
}
