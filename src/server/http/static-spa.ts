import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Serves the built SPA (`dist/client`). Hashed assets under `/assets/` are cached for a year;
 * everything else, `index.html` included, is revalidated so a new build shows at once.
 */
export async function installStaticSpa(app: FastifyInstance, staticDir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: staticDir,
    wildcard: true,
    index: ['index.html'],
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
