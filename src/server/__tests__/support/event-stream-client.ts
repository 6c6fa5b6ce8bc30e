import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

/** One message of a `text/event-stream`, as a browser's EventSource would see it. */
export interface ServerSentMessage {
  /** The `id` field, when the message had one. */
  id?: string;
  /** The `data` field, parsed as JSON. */
  data: { type: string; id?: string; data?: unknown; createdAt?: string };
}

/** An open `GET /api/events` read the way a browser reads it, for the tests. */
export interface TestEventStream {
  status: number;
  headers: Headers;
  /** The messages so far, in order. */
  messages: ServerSentMessage[];
  /** Comment lines so far (heartbeats), without the leading colon. */
  comments: string[];
  /** The `retry` field, when sent. */
  retryMs: number | undefined;
  /**
   * Resolves with the first message (from the start) that `match` accepts; rejects, naming the
   * messages seen, when none came within `timeoutMs` (default 10 s: a guard, not a measure).
   */
  waitFor(
    match: (message: ServerSentMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ServerSentMessage>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  /** Ends it from the client's side. */
  close(): void;
}

/** The base URL of an app listening on 127.0.0.1 (listening on port 0 first if needed). */
export async function listeningUrl(app: FastifyInstance): Promise<string> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * Opens `/api/events` of `app` with the session `cookie` (and `Last-Event-ID` when given) and
 * parses the stream as the WHATWG HTML "Server-sent events" section says: `field: value` lines,
 * a blank line dispatches, `:` starts a comment.
 */
export async function openEventStream(
  app: FastifyInstance,
  cookie: string,
  options: { lastEventId?: string; query?: string } = {},
): Promise<TestEventStream> {
  const controller = new AbortController();
  const response = await fetch(`${await listeningUrl(app)}/api/events${options.query ?? ''}`, {
    headers: {
      cookie,
      accept: 'text/event-stream',
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
    },
    signal: controller.signal,
  });
  const waiters: Array<{
    match: (m: ServerSentMessage) => boolean;
    resolve: (m: ServerSentMessage) => void;
  }> = [];
  const stream: TestEventStream = {
    status: response.status,
    headers: response.headers,
    messages: [],
    comments: [],
    retryMs: undefined,
    waitFor: (match, timeoutMs = 10_000) => {
      const found = stream.messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          const seen = stream.messages.map((m) => m.data.type).join(', ');
          reject(new Error(`no such message within ${timeoutMs} ms; seen: ${seen || 'none'}`));
        }, timeoutMs);
        const waiter = {
          match,
          resolve: (message: ServerSentMessage) => {
            clearTimeout(timer);
            resolve(message);
          },
        };
        waiters.push(waiter);
      });
    },
    ended: Promise.resolve(),
    close: () => controller.abort(),
  };
  if (!response.ok || !response.body) return stream;

  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  stream.ended = (async () => {
    let buffer = '';
    let id: string | undefined;
    let data: string[] = [];
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (data.length > 0) {
              const message: ServerSentMessage = {
                ...(id === undefined ? {} : { id }),
                data: JSON.parse(data.join('\n')) as ServerSentMessage['data'],
              };
              stream.messages.push(message);
              for (const waiter of [...waiters])
                if (waiter.match(message)) {
                  waiters.splice(waiters.indexOf(waiter), 1);
                  waiter.resolve(message);
                }
            }
            id = undefined;
            data = [];
          } else if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
          else {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const text = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') id = text;
            else if (field === 'data') data.push(text);
            else if (field === 'retry') stream.retryMs = Number(text);
          }
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  return stream;
}
