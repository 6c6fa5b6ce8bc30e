import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
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
 * Runs `vite build` in a child Node process (the Node running this one) and waits for it.
 *
 * Not in this process: Vite 8's bundler (Rolldown) and the compression plugin keep their native
 * memory after the build, about 480 MB of RSS that no JavaScript heap holds and no GC returns, so
 * a first `npm start` that built the SPA in-process stayed near 800 MB at rest against about
 * 300 MB for later starts (README, Performance: Memory). A child's memory goes when it exits.
 *
 * @throws Error naming the exit code or signal when the build fails; Vite's own messages are
 *   already on this process's output.
 */
async function viteBuild(root: string, outDir: string): Promise<void> {
  const viteBin = path.join(
    path.dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin',
    'vite.js',
  );
  const child = spawn(
    process.execPath,
    [viteBin, 'build', '--logLevel', 'warn', '--outDir', outDir],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const [code, signal] = (await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (...result) => resolve(result));
  })) as [number | null, NodeJS.Signals | null];
  if (code !== 0)
    throw new Error(
      `building the SPA (vite build) failed with ${signal ? `signal ${signal}` : `exit code ${code}`}; its messages are above`,
    );
}

/**
 * Whether `outDir` holds a build of the SPA newer than every one of its sources (an mtime
 * comparison, as make does).
 */
export async function spaBuildIsFresh(root: string, outDir: string): Promise<boolean> {
  const built = await stat(path.join(outDir, 'index.html')).catch(() => undefined);
  if (!built) return false;
  const sourceTimes = await Promise.all(SOURCES.map((s) => newestMtimeMs(path.join(root, s))));
  return Math.max(...sourceTimes) <= built.mtimeMs;
}

/**
 * Builds the SPA into `outDir` when it is missing or older than any of its sources, so
 * `npm start` works on a fresh clone and stays fast on later starts. The build runs in a child
 * process ({@link viteBuild}). Returns whether a build ran.
 *
 * @throws Error when the build fails.
 */
export async function buildSpaIfNeeded(root: string, outDir: string): Promise<boolean> {
  if (await spaBuildIsFresh(root, outDir)) return false;
  await viteBuild(root, outDir);
  return true;
}
