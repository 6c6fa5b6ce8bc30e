import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { BffProcessConfig } from './bff-process.ts';

const SCRIPT = path.join(import.meta.dirname, 'bff-process.ts');

/** A BFF running in a child process (see `bff-process.ts`). */
export interface BffChild {
  origin: string;
  process: ChildProcess;
  /** Resolves with the signal or exit code once the process has ended. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** Stops it gracefully (SIGTERM) unless it has ended already. */
  stop(): Promise<void>;
}

/**
 * Starts a BFF child process and waits until it listens (at most `timeoutMs`: a guard against a
 * hang; on a loaded 2-core machine loading the BFF, opening PGlite and starting the job queue
 * took over a minute).
 */
export async function startBffChild(
  config: BffProcessConfig,
  timeoutMs = 120_000,
): Promise<BffChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, BFF_PROCESS_CONFIG: JSON.stringify(config), LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      // Not left running after the test gave up on it (it would hold its database and a core).
      child.kill('SIGKILL');
      reject(new Error(`BFF child not listening: ${stderr}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = /LISTENING (\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`BFF child ended (${String(how)}) before listening: ${stderr}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    process: child,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
