/**
 * `npm run test:e2e`: the browser tests in three Playwright processes at once, each on stacks of
 * its own (scripts/e2e-projects.ts, planShards, says which specs run where and why not `--shard`).
 *
 * One Playwright worker left the machine's cores idle while the tests waited on the page, the BFF
 * and the sandbox; several workers in one process would share one stack per project, whose
 * sandbox every test resets. So each shard gets its own `E2E_PORT_OFFSET` (the offset this script
 * is given, default 0, plus the shard's port step), its own output folder and, through its own
 * process id, its own data folders.
 *
 * Arguments are handed to every process (`--reporter=line`, `--grep timeline`). Each line of
 * output starts with its shard; the run ends with each shard's time and fails when any did.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildSpaIfNeeded } from './build-spa-if-needed.ts';
import { planShards, specFilesByFolder } from './e2e-projects.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/*
 * Ports between the shards (each shard's portStep, scripts/e2e-projects.ts). Not 100: the stacks'
 * ports (playwright.config.ts) end in 10, 11, 60, 61, 70, 80 and 90 and some lie 100 apart (the
 * demo BFF on 18080, company sign-in's on 18180, the budget stack's on 18280), so a shard 100
 * above another run's offset can take its ports, and checkouts share the machine at offsets a
 * whole hundred apart. 50 above, the shard with every stack has ports ending in 10, 11, 20, 30,
 * 40, 60 and 61 within blocks of a hundred no other stack of its own hundred uses; 25 above, a
 * shard with the demo stack alone has 18105 and 18115, which no stack uses at any whole hundred's
 * offset nor at 50 above one.
 */

interface ShardResult {
  label: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  seconds: number;
}

/** Writes each line of `stream` to `out` after `label`. */
function prefixLines(stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, label: string): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
    out.write(`${label} ${line}\n`),
  );
}

async function main(): Promise<number> {
  const baseOffset = Number(process.env.E2E_PORT_OFFSET ?? 0);
  if (!Number.isInteger(baseOffset) || baseOffset < 0)
    throw new Error(
      `E2E_PORT_OFFSET must be a whole number of ports, not "${process.env.E2E_PORT_OFFSET}"`,
    );
  // Once here, not in each shard's first stack: two stacks building dist/client at once would
  // write over each other's files.
  if (await buildSpaIfNeeded(root, path.join(root, 'dist', 'client')))
    console.log('Built the SPA into dist/client.');

  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const shards = planShards(specFilesByFolder(path.join(root, 'e2e')));
  const extra = process.argv.slice(2);
  const children = shards.map((shard, i) => {
    const label = `[shard ${i + 1}/${shards.length}]`;
    const offset = baseOffset + shard.portStep;
    const args = [
      cli,
      'test',
      ...shard.projects.map((name) => `--project=${name}`),
      `--output=${path.join('test-results', `shard-${i + 1}`)}`,
      ...shard.files.map((file) => path.relative(root, file)),
      ...extra,
    ];
    console.log(`${label} E2E_PORT_OFFSET=${offset} playwright ${args.slice(1).join(' ')}`);
    const startedAt = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        E2E_PORT_OFFSET: String(offset),
        ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prefixLines(child.stdout, process.stdout, label);
    prefixLines(child.stderr, process.stderr, label);
    return {
      child,
      result: new Promise<ShardResult>((resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, signal) =>
          resolve({ label, code, signal, seconds: (performance.now() - startedAt) / 1000 }),
        );
      }),
    };
  });
  // A stop (SIGTERM, as CI sends) reaches every process, so each stops its own stacks. Ctrl+C
  // reaches them from the terminal already, as the whole foreground group gets it (a second
  // SIGINT would make Playwright quit without stopping its servers): this process only waits.
  process.on('SIGTERM', () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGTERM');
  });
  process.on('SIGINT', () => {});

  const results = await Promise.all(children.map((c) => c.result));
  for (const { label, code, signal, seconds } of results)
    console.log(
      `${label} ${code === 0 ? 'passed' : signal ? `stopped by ${signal}` : `failed (exit code ${code})`} in ${seconds.toFixed(0)} s`,
    );
  return results.every((r) => r.code === 0) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
