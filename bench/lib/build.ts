import { cp, rm } from 'node:fs/promises';
import path from 'node:path';
import { spaBuildIsFresh } from '../../scripts/build-spa-if-needed.ts';

/**
 * A production build of the SPA in `outDir`, never `dist/client` itself, which `npm start` and the
 * browser tests of other runs may be serving and rebuilding. A `dist/client` newer than every
 * source is the same build, so it is copied (CI's browser tests have just built it; a second
 * build took 20-30 s of the smoke run); otherwise the SPA is built into `outDir`.
 */
export async function buildSpa(root: string, outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  const built = path.join(root, 'dist', 'client');
  if (await spaBuildIsFresh(root, built)) {
    await cp(built, outDir, { recursive: true });
    return;
  }
  const { build } = await import('vite');
  await build({ root, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
}

/**
 * Builds bench pages (React-only reference, timeline pages) with Vite from `bench/<dir>`, one
 * entry per HTML file named in `pages`.
 */
export async function buildBenchPages(
  root: string,
  dir: string,
  pages: readonly string[],
  outDir: string,
): Promise<void> {
  const { build } = await import('vite');
  const react = (await import('@vitejs/plugin-react')).default;
  await rm(outDir, { recursive: true, force: true });
  const pageRoot = path.join(root, 'bench', dir);
  await build({
    root: pageRoot,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: {
      outDir,
      emptyOutDir: true,
      // vis-timeline's standalone build is one 550 kB module; it is the reference, not shipped.
      chunkSizeWarningLimit: 1024,
      rollupOptions: { input: pages.map((page) => path.join(pageRoot, page)) },
    },
  });
}
