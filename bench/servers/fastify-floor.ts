/**
 * The floor of the BFF's throughput figure (`bench/figures/bff-proxy.ts`): a Fastify server of the
 * BFF's own version that does nothing but answer the product API's status path with a fixed body,
 * `BODY` (one real answer of the BFF, so the bytes written are the same). No session, guards,
 * hooks, read model or logging: what the framework and the socket cost alone on this machine,
 * reported beside the BFF so the BFF's ratio can be read against what any Fastify server reaches.
 * Prints `READY <port>` once it listens.
 */
import Fastify from 'fastify';
import { z } from 'zod';

const env = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65535),
    BODY: z.string().min(2),
  })
  .parse(process.env);

const app = Fastify({ logger: false, keepAliveTimeout: 65_000 });
app.get('/api/devices/:deviceId/commands/:commandId', (_request, reply) => {
  void reply.type('application/json; charset=utf-8').send(env.BODY);
});
await app.listen({ port: env.PORT, host: '127.0.0.1' });
console.log(`READY ${env.PORT}`);

const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
