import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Hashed assets are cached for a year, the rest revalidated. The build's `.br` and `.gz` are sent
 * as the browser accepts them: no compression CPU per request (docs/architecture.md, Budgets).
 */
export async function installStaticSpa(app: FastifyInstance, staticDir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: staticDir,
    wildcard: true,
    index: ['index.html'],
    preCompressed: true,
    cacheControl: false,
    dotfiles: 'deny',
    setHeaders: (response, filePath) => {
      response.header(
        'cache-control',
        /[\\/]assets[\\/]/.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}
