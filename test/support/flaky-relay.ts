import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the relay does with one request: pass it on; reset the connection before forwarding (the
 * upstream never sees it); forward it, wait for the answer, and reset instead of relaying it
 * (the upstream acted, the caller cannot know); or forward it and hold its answer until
 * `answerAfter` settles (an answer that lands late, after later calls were answered).
 */
export type RelayAction = 'pass' | 'resetBefore' | 'resetAfter' | { answerAfter: Promise<unknown> };

/**
 * A loopback HTTP relay in front of the sandbox that breaks connections on demand, for the
 * fault suite's connection-reset cases (the sandbox's own faults cover latency, 5xx and 429).
 */
export interface FlakyRelay {
  origin: string;
  /** Decides per request; default: pass everything. */
  plan: (method: string, path: string) => RelayAction;
  /** Connections reset so far. */
  resets: number;
  close(): Promise<void>;
}

export async function startFlakyRelay(upstreamOrigin: string): Promise<FlakyRelay> {
  const target = new URL(upstreamOrigin);
  const relay: FlakyRelay = {
    origin: '',
    plan: () => 'pass',
    resets: 0,
    close: async () => undefined,
  };
  const server = http.createServer((incoming, outgoing) => {
    const action = relay.plan(incoming.method ?? 'GET', incoming.url ?? '/');
    if (action === 'resetBefore') {
      relay.resets += 1;
      incoming.socket.destroy();
      return;
    }
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          if (action === 'resetAfter') {
            relay.resets += 1;
            incoming.socket.destroy();
            return;
          }
          const relayAnswer = () => {
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            outgoing.end(Buffer.concat(chunks));
          };
          if (typeof action === 'object') void action.answerAfter.finally(relayAnswer);
          else relayAnswer();
        });
      },
    );
    forward.on('error', () => incoming.socket.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}
