/**
 * The browser tests' stacks of one Playwright process, started at once: playwright.config.ts
 * gives this script as its one `webServer` with the stacks in `E2E_STACKS` (JSON, each
 * {@link StackSpec}), and Playwright waits for the line {@link ALL_READY}.
 *
 * Why not one `webServer` entry per stack: Playwright starts its entries one after the other,
 * each once the one before answers, so a process with five servers (the demo stack, the test
 * identity provider and Glewlwyd, each company sign-in stack) waited about a minute before its
 * first test, most of it for servers that could have been starting meanwhile.
 *
 * As Playwright did for each entry: a stack whose URL already answers before it is started stops
 * the run (another run on the same ports would answer its tests), and one that exits or does not
 * answer in time ends this script, which fails the Playwright run. Each line a stack prints is
 * shown after its name. Stopped by a signal (Playwright sends SIGTERM), this script stops each
 * stack with SIGTERM, so Glewlwyd's script removes its throwaway folder, and exits once they have.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';

/** The line this script prints once every stack answers. */
export const ALL_READY = 'E2E stacks ready';

const StackSpecSchema = z.object({
  /** The stack's name in front of its lines. */
  name: z.string().min(1),
  /** A shell command line, run in this script's folder of work (the repository). */
  command: z.string().min(1),
  env: z.record(z.string(), z.string()),
  /** The stack is up once this answers with a status under 404 (as Playwright's `url`). */
  url: z.url(),
  /** How long the stack may take to answer, ms. */
  timeoutMs: z.number().int().positive(),
});
/** One stack as `E2E_STACKS` lists it. */
export type StackSpec = z.infer<typeof StackSpecSchema>;

/** Whether `url` answers with a status Playwright's `webServer.url` counts as up (below 404). */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status < 404;
  } catch {
    return false;
  }
}

/** Whether `child` has exited. */
const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Starts `stack` and resolves once its URL answers; rejects when it exits or times out first. */
async function startStack(stack: StackSpec, children: ChildProcess[]): Promise<void> {
  // A process group of its own, so stopping it reaches the processes `npx` and `tsx` start.
  const child = spawn(stack.command, {
    shell: true,
    detached: true,
    env: { ...process.env, ...stack.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const)
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
      out.write(`[${stack.name}] ${line}\n`),
    );
  const exit = once(child, 'exit');
  const deadline = Date.now() + stack.timeoutMs;
  for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 1_000)) {
    if (ended(child)) {
      const [code, signal] = await exit;
      throw new Error(`${stack.name} exited while starting (${signal ?? `exit code ${code}`})`);
    }
    if (await answers(stack.url)) break;
    if (Date.now() > deadline)
      throw new Error(`${stack.name} did not answer at ${stack.url} within ${stack.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  void exit.then(([code, signal]) =>
    console.error(`[${stack.name}] exited (${signal ?? `exit code ${code}`})`),
  );
}

/** How long a stack may take to stop after SIGTERM, ms: below Playwright's 5 s for this script. */
const STOP_TIMEOUT_MS = 4_000;

/** Sends `signal` to the process group of `child`, unless it is gone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Stops every stack (SIGTERM, then SIGKILL after {@link STOP_TIMEOUT_MS}) and waits for it. */
async function stopAll(children: ChildProcess[]): Promise<void> {
  const running = children.filter((child) => !ended(child));
  for (const child of running) signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => {
    for (const child of children) signalGroup(child, 'SIGKILL');
  }, STOP_TIMEOUT_MS);
  await Promise.all(running.map((child) => (ended(child) ? undefined : once(child, 'exit'))));
  clearTimeout(timer);
}

async function main(): Promise<void> {
  const stacks = z.array(StackSpecSchema).parse(JSON.parse(process.env.E2E_STACKS ?? '[]'));
  const taken = await Promise.all(stacks.map((stack) => answers(stack.url)));
  const clash = stacks.filter((_, i) => taken[i]);
  if (clash.length > 0)
    throw new Error(
      `already in use (another browser test run on these ports?): ${clash.map((s) => s.url).join(', ')}`,
    );
  const children: ChildProcess[] = [];
  // On every signal, not once: it comes from Playwright to the process group of `npx` and `tsx`
  // too, and `tsx` passes its own on, so a second must not end this script before its stacks.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void stopAll(children).then(() => process.exit(0));
    });
  try {
    await Promise.all(stacks.map((stack) => startStack(stack, children)));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await stopAll(children);
    process.exit(1);
  }
  console.log(ALL_READY);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
