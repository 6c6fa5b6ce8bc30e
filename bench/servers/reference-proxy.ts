/**
 * The reference of the BFF's added-latency and throughput figures (`docs/architecture.md`,
 * "Budgets"): the least a BFF can do, a node:http server that forwards `/api/<path>` to
 * `<UPSTREAM_BASE_URL>/<path>` (the vendor's base URL, with its `/api/openapi/v1`) through an
 * undici Pool with a bearer token fetched once at start from `<UPSTREAM_AUTH_URL>` (the region's
 * root, docs/upstream.md, Tokens), streaming the body back. No session, CSRF, allowlist, mapping
 * or logging: the product API's status route has the vendor's path under `/api`. Prints
 * `READY <port>` once it listens.
 */
import { createServer } from 'node:http';
import { Pool, request } from 'undici';
import { z } from 'zod';
import { TOKEN_PATH, TokenResponseSchema } from '#domain/token.ts';

const env = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65535),
    UPSTREAM_AUTH_URL: z.url(),
    UPSTREAM_BASE_URL: z.url(),
    CLIENT_ID: z.string().min(1),
    CLIENT_SECRET: z.string().min(1),
  })
  .parse(process.env);

const base = new URL(env.UPSTREAM_BASE_URL);
const tokenResponse = await request(`${env.UPSTREAM_AUTH_URL.replace(/\/+$/, '')}${TOKEN_PATH}`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: env.CLIENT_ID,
    client_secret: env.CLIENT_SECRET,
  }).toString(),
});
const token = TokenResponseSchema.parse(await tokenResponse.body.json()).access_token;

const pool = new Pool(base.origin, { connections: 64, pipelining: 1 });
const prefix = base.pathname.replace(/\/+$/, '');

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (!url.startsWith('/api/')) {
    res.writeHead(404).end();
    return;
  }
  pool
    .request({
      method: (req.method ?? 'GET') as 'GET',
      path: `${prefix}${url.slice('/api'.length)}`,
      headers: {
        authorization: `Bearer ${token}`,
        ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
      },
      body: req.method === 'GET' || req.method === 'HEAD' ? null : req,
    })
    .then((upstream) => {
      const type = upstream.headers['content-type'];
      res.writeHead(upstream.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
      upstream.body.pipe(res);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
server.keepAliveTimeout = 65_000;
server.listen(env.PORT, '127.0.0.1', () => console.log(`READY ${env.PORT}`));

const stop = () => server.close(() => void pool.close().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
