import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The browser tests' own servers started as child processes (e2e/support/prism-stack.ts, budget-stack.ts). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How long a child may take to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 10_000;
/** Lines of each child's output kept for the message of a failed start. */
const KEPT_LINES = 200;

/** A child process with the last lines of its output. */
export interface Child {
  name: string;
  process: ChildProcess;
  lines: string[];
  exited: Promise<void>;
}

/** Starts `node args` (the Node running the tests: the project's 24) in the repository. */
export function startChild(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void = () => {},
): Child {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    const added = chunk.toString('utf8').split('\n').filter(Boolean);
    added.forEach(onLine);
    lines.push(...added);
    lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit').then(() => undefined);
  return { name, process: child, lines, exited };
}

export async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await child.exited;
  clearTimeout(timer);
}

/**
 * Waits until `url` answers at all (any status) while every child runs.
 *
 * @throws Error with the children's last output when one exits or the time runs out.
 */
export async function waitForAnswer(
  url: string,
  children: Child[],
  deadline: number,
  headers: Record<string, string> = {},
): Promise<void> {
  for (;;) {
    const dead = children.find((c) => c.process.exitCode !== null || c.process.signalCode !== null);
    if (dead) throw new Error(`${dead.name} exited while starting:\n${dead.lines.join('\n')}`);
    if (Date.now() > deadline)
      throw new Error(
        `${url} did not answer in time:\n` +
          children.map((c) => `--- ${c.name}\n${c.lines.join('\n')}`).join('\n'),
      );
    try {
      await fetch(url, { headers, signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
