import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

const SOURCES = [
  'src/client',
  'src/domain',
  'index.html',
  'vite.config.ts',
  'public',
  'package-lock.json',
];

async function newestMtimeMs(target: string): Promise<number> {
  const info = await stat(target).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(target, { withFileTypes: true });
  const times = await Promise.all(entries.map((e) => newestMtimeMs(path.join(target, e.name))));
  return Math.max(info.mtimeMs, ...times);
}

/**
 * Builds the SPA into `outDir` when it is missing or older than any of its sources, so
 * `npm start` works on a fresh clone and stays fast on later starts.
 * Returns whether a build ran.
 */
export async function buildSpaIfNeeded(root: string, outDir: string): Promise<boolean> {
  const built = await stat(path.join(outDir, 'index.html')).catch(() => undefined);
  if (built) {
    const sourceTimes = await Promise.all(SOURCES.map((s) => newestMtimeMs(path.join(root, s))));
    if (Math.max(...sourceTimes) <= built.mtimeMs) return false;
  }
  const { build } = await import('vite');
  await build({ root, logLevel: 'warn', build: { outDir } });
  return true;
}
