import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process the bench started, in its own process group so its children stop with it. */
export interface Started {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr), for error messages. */
  output(): string;
  stop(): Promise<void>;
}

const started = new Set<Started>();

/** A free TCP port on 127.0.0.1 (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a command detached (own process group) and tracks it so `stopAll` ends it and its
 * children even when the bench fails half way.
 */
export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Started {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const handle: Started = {
    name,
    child,
    output: () => output,
    stop: async () => {
      started.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      signalGroup(child.pid, 'SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!done) {
        signalGroup(child.pid, 'SIGKILL');
        await exited;
      }
    },
  };
  started.add(handle);
  return handle;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Resolves once `line` matches something the process printed; rejects on exit or timeout. */
export async function waitForOutput(
  proc: Started,
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = proc.output().match(pattern);
    if (match) return match;
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      throw new Error(`${proc.name} exited before it was ready:\n${proc.output()}`);
    await sleep(25);
  }
  throw new Error(`${proc.name} not ready after ${timeoutMs} ms:\n${proc.output()}`);
}

/** Stops every process still running, children included. */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((proc) => proc.stop()));
}

/** Runs a tsx entry point in a child Node process. */
export function startTsx(name: string, entry: string, env: NodeJS.ProcessEnv): Started {
  return startProcess(name, process.execPath, ['--import', 'tsx', entry], env);
}
