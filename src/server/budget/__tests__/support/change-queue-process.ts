/**
 * Runs a queue of changes in a process of its own, for the test that kills it mid-step
 * (`change-queue-crash.test.ts`). Configuration comes as JSON in `CHANGE_QUEUE_PROCESS_CONFIG`.
 * Its `send` stands in for the command ledger: a step's key that already reached the fake
 * upstream (a table in the same database) is replayed, not sent again; every try is logged. With
 * `crashAfterUpstreamCalls` it kills itself with SIGKILL right after that many calls reached the
 * fake upstream, before the queue records the answer. Otherwise it waits for the change to end
 * and prints `RESULT <json>` with the change's status, the tries and the upstream calls.
 */
import { sql } from 'drizzle-orm';
import { openDatabase } from '#infra/database.ts';
import type { QueuedChange } from '#domain/queued-change.ts';
import { openBffStorage } from '#server/db/storage.ts';
import { ChangeQueue } from '../../change-queue.ts';
import type { StepResult, StepToSend } from '../../change-runner.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../../device-budget-store.ts';
import { QueuedChangeStore } from '../../queued-change-store.ts';

export interface ChangeQueueProcessConfig {
  dataDir: string;
  databaseUrl?: string | undefined;
  changeId: string;
  /** Queued by this process before its queue starts. */
  change?: QueuedChange | undefined;
  crashAfterUpstreamCalls?: number | undefined;
}

const OWNER = { region: 'eu' as const, clientId: 'demo-eu' };
const config = JSON.parse(
  process.env.CHANGE_QUEUE_PROCESS_CONFIG ?? '{}',
) as ChangeQueueProcessConfig;

const handle = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
await openBffStorage({ database: handle });
await handle.db.execute(
  sql`create table if not exists public.fake_upstream_calls (key text primary key)`,
);
await handle.db.execute(
  sql`create table if not exists public.fake_tries (id serial primary key, key text not null, attempt integer not null)`,
);

/** The rows of a raw statement's answer (the same on both drivers). */
const rowsOf = (result: unknown) => (result as { rows: unknown[] }).rows;

let upstreamCalls = 0;
const send = async (step: StepToSend): Promise<StepResult> => {
  const key = step.step.idempotencyKey;
  await handle.db.execute(
    sql`insert into public.fake_tries (key, attempt) values (${key}, ${step.attempt})`,
  );
  const reached = await handle.db.execute(
    sql`insert into public.fake_upstream_calls (key) values (${key}) on conflict (key) do nothing returning key`,
  );
  if (rowsOf(reached).length > 0) {
    upstreamCalls += 1;
    if (upstreamCalls === config.crashAfterUpstreamCalls) process.kill(process.pid, 'SIGKILL');
  }
  return { result: 'sent', answer: { status: 202, body: {} } };
};

// The step sent again after the crash takes a slot of its own (the budget cannot know that the
// ledger will replay it), so with the vendor's 2 the submit would wait a minute of real time.
const budget = new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 10, au: 10 }));
const queue = new ChangeQueue({
  handle,
  store: new QueuedChangeStore(handle.db, budget),
  budget,
  send,
  upstreamNow: Date.now,
  log: { info: () => {}, warn: () => {}, error: () => {} },
  options: {
    pollingIntervalSeconds: 0.5,
    stepExpireSeconds: 2,
    superviseIntervalSeconds: 1,
    recheckIntervalMs: 200,
  },
});
await queue.start();
if (config.change) {
  const outcome = await queue.enqueue({ id: config.changeId, owner: OWNER, change: config.change });
  if (!outcome.queued) throw new Error(`not queued: ${outcome.reason}`);
}
const status = await queue.settled(OWNER, config.changeId, 60_000);
const tries = await handle.db.execute(sql`select key, attempt from public.fake_tries order by id`);
const upstream = await handle.db.execute(sql`select key from public.fake_upstream_calls`);
process.stdout.write(
  `RESULT ${JSON.stringify({ status, tries: rowsOf(tries), upstream: rowsOf(upstream) })}\n`,
);
await queue.stop();
await handle.close();
process.exit(0);
