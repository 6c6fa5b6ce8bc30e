/**
 * `npm test`: the project's checks as stages, each an npm script, printing how long each took.
 * A stage of several scripts (`typecheck+lint:code+lint:format`) runs them side by side: the type
 * checker and the linter each keep one core busy, and CI's machine has two; the format check
 * (prettier, about a third of the lint's CPU) fills the gaps beside them instead of waiting for
 * the linter to end; `npm run lint` runs the same checks one after the other. The first failing
 * stage ends the run with its exit code; the stages after it are reported as not run.
 *
 * Usage: `tsx scripts/test-stages.ts typecheck+lint:code+lint:format test:unit test:e2e`
 */
import { spawn } from 'node:child_process';

/** The outcome of one npm script: its exit code (1 when it died by a signal) and wall time. */
interface ScriptRun {
  script: string;
  code: number;
  ms: number;
}

function runScript(script: string): Promise<ScriptRun> {
  const startedMs = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', script], { stdio: 'inherit' });
    child.on('close', (code) =>
      resolve({ script, code: code ?? 1, ms: Math.round(performance.now() - startedMs) }),
    );
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

async function main(stages: readonly string[]): Promise<number> {
  const lines: string[] = [];
  let failed: number | undefined;
  for (const stage of stages) {
    if (failed !== undefined) {
      lines.push(`${stage}: not run`);
      continue;
    }
    const startedMs = performance.now();
    const runs = await Promise.all(stage.split('+').map(runScript));
    const detail =
      runs.length > 1 ? ` (${runs.map((r) => `${r.script} ${seconds(r.ms)}`).join(', ')})` : '';
    const bad = runs.find((r) => r.code !== 0);
    lines.push(
      `${stage}: ${seconds(performance.now() - startedMs)}${detail}${bad ? ` FAILED (${bad.script} exit ${bad.code})` : ''}`,
    );
    if (bad) failed = bad.code;
  }
  console.log(`\nstage times\n${lines.map((line) => `  ${line}`).join('\n')}`);
  return failed ?? 0;
}

process.exitCode = await main(process.argv.slice(2));
