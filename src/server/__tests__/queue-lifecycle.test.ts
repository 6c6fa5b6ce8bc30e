/**
 * The start and stop the BFF's queues share (`QueueLifecycle`, src/server/db/job-queue.ts): a
 * start retried with back-off and logged in the queue's words, a stop that cuts a retry's wait
 * short, and a host stopped only by the queue that made it.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#infra/database.ts';
import {
  JobQueueHost,
  QueueLifecycle,
  START_RETRY_FIRST_MS,
  type QueueLog,
} from '../db/job-queue.ts';

function recordingLog() {
  const lines: { level: keyof QueueLog; details: Record<string, unknown>; message: string }[] = [];
  const log: QueueLog = {
    info: (details, message) => lines.push({ level: 'info', details, message }),
    warn: (details, message) => lines.push({ level: 'warn', details, message }),
    error: (details, message) => lines.push({ level: 'error', details, message }),
  };
  return { log, lines };
}

const noDatabase = {} as DatabaseHandle;

function lifecycleOf(log: QueueLog, host?: JobQueueHost) {
  return new QueueLifecycle({
    handle: noDatabase,
    host,
    log,
    name: 'test queue',
    whileDown: 'tests wait',
  });
}

describe('the lifecycle of a queue on the shared pg-boss', () => {
  it('tries its start again after a failure, in the queue’s words, and says when it worked', async () => {
    const { log, lines } = recordingLog();
    const life = lifecycleOf(log);
    const failures: number[] = [];
    let tries = 0;
    await life.start(
      async () => {
        tries += 1;
        if (tries === 1) throw new Error('database not ready');
      },
      { onFailure: ({ retryInMs }) => failures.push(retryInMs) },
    );
    expect(tries).toBe(2);
    expect(failures).toEqual([START_RETRY_FIRST_MS]);
    expect(lines).toEqual([
      {
        level: 'error',
        details: { attempt: 1, retryInMs: START_RETRY_FIRST_MS, reason: 'database not ready' },
        message: 'test queue did not start; tests wait until it does; trying again',
      },
      { level: 'info', details: { attempt: 2 }, message: 'test queue started after failed tries' },
    ]);
    // Idempotent: a second call is the first start, not another try.
    await life.start(async () => {
      tries += 1;
    });
    expect(tries).toBe(2);
  });

  it('stops without waiting out a retry, and tries no more', async () => {
    const { log, lines } = recordingLog();
    const life = lifecycleOf(log);
    let tries = 0;
    let failed!: () => void;
    const firstFailure = new Promise<void>((resolve) => (failed = resolve));
    const starting = life.start(
      async () => {
        tries += 1;
        throw new Error('database not ready');
      },
      { onFailure: () => failed() },
    );
    await firstFailure;
    await life.halt();
    await starting;
    expect(life.signal.aborted).toBe(true);
    expect(tries).toBe(1);
    expect(lines.map((line) => line.level)).toEqual(['error']);
  });

  it('stops a host it made, never one it was given', async () => {
    const { log } = recordingLog();
    const given = new JobQueueHost(noDatabase, log);
    let givenStopped = false;
    given.stop = async () => {
      givenStopped = true;
    };
    await lifecycleOf(log, given).stopHost(1_000);
    expect(givenStopped).toBe(false);

    const own = lifecycleOf(log);
    let ownStopped = false;
    own.host.stop = async () => {
      ownStopped = true;
    };
    await own.stopHost(1_000);
    expect(ownStopped).toBe(true);
  });
});
