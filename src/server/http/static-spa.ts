import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Serves the built SPA (`dist/client`). Hashed assets under `/assets/` are cached for a year;
 * everything else, `index.html` included, is revalidated so a new build shows at once.
 *
 * The build writes `.br` and `.gz` next to each text file (`vite.config.ts`); with `preCompressed`
 * the best one the browser accepts is sent (brotli, then gzip, else the plain file), with
 * `Content-Encoding` and `Vary: Accept-Encoding`. Compressing once at build time costs no CPU per
 * request (page load budget, docs/architecture.md, Budgets). `reply.sendFile('index.html')`, the
 * SPA route fallback, is served the same way.
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
