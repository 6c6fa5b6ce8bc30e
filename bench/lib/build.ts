import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Production build of the SPA with a Vite manifest, into `outDir` (not `dist/client`, which
 * `npm start` and the browser tests of other runs may be serving).
 */
export async function buildSpa(root: string, outDir: string): Promise<void> {
  const { build } = await import('vite');
  await build({
    root,
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, manifest: true },
  });
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
