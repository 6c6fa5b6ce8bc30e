/**
 * A queued change whose BFF is killed with SIGKILL mid-step, between the upstream's answer to its
 * first call and the queue's record of it (docs/decisions/007-device-call-budget.md, section 2):
 * a new process on the same database sends that step again under the same key, which the ledger
 * (here a stand-in that replays a key it has seen) answers without a second upstream call, and
 * then sends the rest. On PGlite and, with TEST_DATABASE_URL, PostgreSQL; each process owns the
 * database in turn, as an embedded database belongs to one process.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { QueuedChange } from '#domain/queued-change.ts';
import type { ChangeQueueProcessConfig } from './support/change-queue-process.ts';

const SCRIPT = path.join(import.meta.dirname, 'support', 'change-queue-process.ts');

/** Runs the queue process to its end (at most `timeoutMs`): how it ended and what it printed. */
function runQueueProcess(
  config: ChangeQueueProcessConfig,
  timeoutMs = 90_000,
): Promise<{ how: NodeJS.Signals | number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, CHANGE_QUEUE_PROCESS_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ how: signal ?? code, stdout, stderr });
    }),
  );
}

describe.each(DATABASE_KINDS)(
  'a queued change across a SIGKILL on %s',
  { timeout: 240_000 },
  (kind) => {
    let testDb: TestDatabase | undefined;
    afterAll(() => testDb?.drop());

    it('sends the interrupted step again under its key, then the rest, each call reaching the upstream once', async () => {
      testDb = await createTestDatabase(kind);
      const database = {
        dataDir: testDb.dataDir,
        ...(testDb.databaseUrl ? { databaseUrl: testDb.databaseUrl } : {}),
      };
      const key = randomUUID();
      const change: QueuedChange = {
        kind: 'replace',
        steps: [
          { call: 'cancel', deviceId: 'BAT-1', commandId: 'cmd_old', idempotencyKey: `${key}/1` },
          {
            call: 'submit',
            deviceId: 'BAT-1',
            command: {
              powerControl: { targetBatteryPowerW: 1500 },
              startTime: '2030-01-01T10:00:00Z',
              endTime: '2030-01-01T11:00:00Z',
            },
            idempotencyKey: `${key}/2`,
          },
        ],
      };
      const changeId = randomUUID();

      const startedAt = performance.now();
      const killed = await runQueueProcess({
        ...database,
        changeId,
        change,
        crashAfterUpstreamCalls: 1,
      });
      expect(killed.how, killed.stderr).toBe('SIGKILL');

      const killedAfterMs = Math.round(performance.now() - startedAt);
      const restarted = await runQueueProcess({ ...database, changeId });
      const restartedForMs = Math.round(performance.now() - startedAt) - killedAfterMs;
      expect(restarted.how, restarted.stderr).toBe(0);
      const result = JSON.parse(/^RESULT (.*)$/m.exec(restarted.stdout)?.[1] ?? 'null') as {
        status: { state: string; steps: { state: string }[] };
        tries: { key: string; attempt: number }[];
        upstream: { key: string }[];
      };
      console.info(
        `fault report ${JSON.stringify({ fault: 'SIGKILL after the first step reached the upstream', database: kind, tries: result.tries.length, upstreamCalls: result.upstream.length, killedAfterMs, restartedForMs })}`,
      );
      expect(result.status.state).toBe('sent');
      expect(result.status.steps.map((step) => step.state)).toEqual(['sent', 'sent']);
      expect(result.tries).toEqual([
        { key: `${key}/1`, attempt: 1 },
        { key: `${key}/1`, attempt: 2 },
        { key: `${key}/2`, attempt: 1 },
      ]);
      expect(result.upstream.map((row) => row.key).sort()).toEqual([`${key}/1`, `${key}/2`]);
    });
  },
);
