import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP relay in front of the upstream's token endpoint that remembers every
 * `access_token` it relays, so a test can prove tokens never leak (security suite).
 */
export interface TokenTap {
  /** Origin to use as the auth URL base instead of the upstream's. */
  origin: string;
  tokens: string[];
  close(): Promise<void>;
}

export async function startTokenTap(upstreamOrigin: string): Promise<TokenTap> {
  const target = new URL(upstreamOrigin);
  const tokens: string[] = [];
  const server = http.createServer((incoming, outgoing) => {
    const relay = http.request(
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
          const body = Buffer.concat(chunks);
          try {
            const token = (JSON.parse(body.toString('utf8')) as { access_token?: unknown })
              .access_token;
            if (typeof token === 'string') tokens.push(token);
          } catch {
            // Not JSON: nothing to remember.
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(body);
        });
      },
    );
    relay.on('error', () => outgoing.destroy());
    incoming.pipe(relay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    tokens,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
