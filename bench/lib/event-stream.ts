import { request } from 'undici';
import { PushEnvelopeSchema, type PushEnvelope } from '#domain/account-events.ts';
import type { BffSession } from './http.ts';

/** One message of the stream and when the bench read it (`Date.now()`, ms). */
export interface ReceivedPush {
  receivedAtMs: number;
  message: PushEnvelope;
}

/** An open `GET /api/events` of one simulated browser. */
export interface BenchEventStream {
  /** Every message so far, in order. */
  received: ReceivedPush[];
  /** Resolves at the first `ready` (the stream is live); rejects after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>;
  close(): void;
}

/**
 * Opens the account's event stream (`GET /api/events`, docs/architecture.md, Live updates) as a
 * browser's EventSource would, and parses it as the WHATWG HTML "Server-sent events" section
 * says: `field: value` lines, a blank line dispatches, `:` starts a comment (heartbeats). Each
 * message's `data` is parsed with the push envelope's schema.
 *
 * @throws Error when the BFF does not answer 200.
 */
export async function openEventStream(session: BffSession): Promise<BenchEventStream> {
  const controller = new AbortController();
  const response = await request(`${session.origin}/api/events`, {
    headers: { cookie: session.cookie, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    throw new Error(`event stream: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  }
  const received: ReceivedPush[] = [];
  let onReady: (() => void) | undefined;
  const live = new Promise<void>((resolve) => (onReady = resolve));
  void (async () => {
    let buffer = '';
    let data: string[] = [];
    try {
      response.body.setEncoding('utf8');
      for await (const chunk of response.body as AsyncIterable<string>) {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (data.length > 0) {
              const message = PushEnvelopeSchema.parse(JSON.parse(data.join('\n')));
              received.push({ receivedAtMs: Date.now(), message });
              if (message.type === 'ready') onReady?.();
            }
            data = [];
          } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
      }
    } catch {
      // Closed by the bench.
    }
  })();
  return {
    received,
    ready: (timeoutMs) =>
      Promise.race([
        live,
        new Promise<void>((_, reject) =>
          setTimeout(
            () => reject(new Error(`event stream not live within ${timeoutMs} ms`)),
            timeoutMs,
          ).unref(),
        ),
      ]),
    close: () => controller.abort(),
  };
}
