import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * Serves a built bench page gzip-compressed on 127.0.0.1 (ephemeral port), so a reference page
 * travels the same way the BFF sends the SPA. Caller closes it.
 */
export async function serveStatic(dir: string): Promise<{ origin: string; app: FastifyInstance }> {
  const app = Fastify({ logger: false });
  await app.register(compress, { global: true, encodings: ['gzip'] });
  await app.register(fastifyStatic, { root: dir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { origin: `http://127.0.0.1:${port}`, app };
}
