import { PassThrough } from 'node:stream';
import type { PushControlType } from '../../domain/account-events.ts';
import type { StoredEvent } from './event-store.ts';
import { accountKey, type Account } from '../../domain/account.ts';

/**
 * Most bytes one stream holds for a browser that reads slower than events come (a stalled tab, a
 * slow link), beyond the socket's own buffers. Past it the stream is closed: the browser opens it
 * again with its `Last-Event-ID` and replays what it missed from the table, so a slow reader
 * costs a reconnect, never the BFF's memory. 256 KiB is about a thousand events.
 */
export const MAX_STREAM_BUFFER_BYTES = 256 * 1024;

/** Most live events held for a stream while it replays from the table; more make it resync. */
const MAX_HELD_WHILE_REPLAYING = 1000;

/** Why a stream closed, for the log and the tests. */
export type StreamCloseReason = 'client' | 'sessionEnded' | 'slowReader' | 'shutdown' | 'failed';

/**
 * One open `GET /api/events` (docs/architecture.md, Live updates): the server-sent events of one
 * account for one person and session, written in the `text/event-stream` format (WHATWG HTML,
 * "Server-sent events"). It holds no database connection; the instance's hub hands it events.
 * Events that arrive while it replays what the browser missed are held, then sent in order; an
 * event is never sent twice (IDs only grow).
 */
export class EventStream {
  /** The response body (Fastify pipes it to the socket, so every hook and header applies). */
  readonly body = new PassThrough();
  readonly account: Account;
  readonly accountKey: string;
  /** The person key of the signed-in person (`src/domain/account.ts`). */
  readonly person: string;
  /** SHA-256 of the session ID, base64url. */
  readonly sessionHash: string;
  /** When the session expires unless it is used meanwhile, epoch ms. */
  sessionDeadlineMs: number;
  /** The ID of the last event sent (or the position it started from). */
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
    // Fastify destroys the body when the browser goes; either way the hub forgets the stream.
    this.body.on('close', () => this.close('client'));
    this.body.on('error', () => this.close('failed'));
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** True while the events the browser missed are being read and sent. */
  get replaying(): boolean {
    return this.#replaying;
  }

  /** Whether `stored` is for this stream's person (theirs, or everyone's). */
  isFor(stored: StoredEvent): boolean {
    return stored.recipient === null || stored.recipient === this.person;
  }

  /** The reconnection delay the browser uses after a drop (the `retry` field), ms. */
  sendRetry(retryMs: number): void {
    this.#write(`retry: ${Math.round(retryMs)}\n\n`);
  }

  /** A live event from the hub: sent now, or held until the replay is done. */
  deliver(stored: StoredEvent): void {
    if (this.closed || !this.isFor(stored)) return;
    if (!this.#replaying) return this.send(stored);
    if (this.#held.length >= MAX_HELD_WHILE_REPLAYING) this.#heldOverflow = true;
    else this.#held.push(stored);
  }

  /** Writes an event unless it was sent already. */
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

  /** A message of the stream itself (`ready`, `resync`, `sessionEnded`), at position `id`. */
  sendControl(type: PushControlType, id?: number): void {
    if (id !== undefined) this.lastSentId = Math.max(this.lastSentId, id);
    const idLine = id === undefined ? '' : `id: ${id}\n`;
    const message = id === undefined ? { type } : { type, id: String(id) };
    this.#write(`${idLine}data: ${JSON.stringify(message)}\n\n`);
  }

  /**
   * Ends the replay: the held live events go out in ID order, then `ready`. When more arrived
   * than could be held, the browser is told to resync from `headId` instead.
   */
  finishReplay(headId: number): void {
    if (!this.#replaying) return;
    this.#replaying = false;
    const held = this.#held.sort((a, b) => a.id - b.id);
    this.#held = [];
    if (this.#heldOverflow) this.sendControl('resync', Math.max(headId, held.at(-1)?.id ?? 0));
    else for (const stored of held) this.send(stored);
    this.sendControl('ready', this.lastSentId);
  }

  /** A comment line: keeps proxies and load balancers from closing an idle stream. */
  heartbeat(): void {
    this.#write(': heartbeat\n\n');
  }

  /** Ends the stream (idempotent); the hub forgets it. */
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
