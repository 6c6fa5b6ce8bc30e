import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { E2E_BUDGET_BFF_PORT, E2E_BUDGET_SANDBOX_PORT } from '../../playwright.config.ts';
import { startChild, stopChild, waitForAnswer, type Child } from './child-process.ts';
import { sandboxAdminAt } from './sandbox-admin.ts';

/** How long a start may take: PGlite opens (and recovers) its data folder, the SPA is served. */
const START_TIMEOUT_MS = 180_000;

/**
 * `npm start` (scripts/start.ts: the sandbox and the BFF in one process, on one embedded
 * database, the BFF's budget on the sandbox's clock) at the vendor's real limit: 2 calls per
 * device and rolling minute in the sandbox and in the BFF's budget of both regions
 * (docs/decisions/007-device-call-budget.md), on the ports of playwright.config.ts
 * (`E2E_BUDGET_*`) and a data folder of its own.
 */
export interface BudgetStack {
  /** The BFF's origin, where the SPA is served. */
  readonly origin: string;
  /** The sandbox's admin API (its clock, its request counts). */
  readonly sandbox: ReturnType<typeof sandboxAdminAt>;
  /**
   * Stops the process and starts it again on the same ports and data folder: what the BFF kept
   * in its database (sessions, queued changes, the budget's spent calls) is all a queued change
   * has. The sandbox restarts with it and keeps its commands and clock (written through to the
   * same database); it forgets its request counts and the calls its own limit counted.
   */
  restart(): Promise<void>;
  /** Stops the process and removes the data folder. */
  stop(): Promise<void>;
}

function startProcess(dataDir: string): Child {
  return startChild(
    'powerdeck',
    [
      '--max-semi-space-size=16',
      '--import',
      './scripts/package-scope-hints.mjs',
      '--import',
      'tsx',
      'scripts/start.ts',
    ],
    {
      ...process.env,
      PORT: String(E2E_BUDGET_BFF_PORT),
      SANDBOX_PORT: String(E2E_BUDGET_SANDBOX_PORT),
      SANDBOX_FIXTURE: 'demo',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // The vendor's limit and the BFF's budget as in production (the other stacks run 30).
      SANDBOX_RATE_LIMIT_PER_MINUTE: '2',
      EU_DEVICE_CALLS_PER_MINUTE: '2',
      AU_DEVICE_CALLS_PER_MINUTE: '2',
      // These tests count each call of a device within its minute; the fleet snapshot's read,
      // every five minutes of the clock they move, would take one of the two at a moment of its
      // own. What the snapshot costs is tested apart (src/server/telemetry/__tests__).
      FLEET_SNAPSHOT_EVERY_S: '0',
    },
  );
}

/**
 * Starts the stack with a fresh data folder; resolves once the BFF answers.
 *
 * @throws Error with the process's output when it exits or does not answer within 3 minutes.
 */
export async function startBudgetStack(): Promise<BudgetStack> {
  const origin = `http://127.0.0.1:${E2E_BUDGET_BFF_PORT}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-e2e-budget-'));
  let child = startProcess(dataDir);
  const ready = async () => {
    try {
      await waitForAnswer(`${origin}/api/session`, [child], Date.now() + START_TIMEOUT_MS);
    } catch (error) {
      await stopChild(child);
      throw error;
    }
  };
  await ready();
  return {
    origin,
    sandbox: sandboxAdminAt(E2E_BUDGET_SANDBOX_PORT),
    restart: async () => {
      await stopChild(child);
      child = startProcess(dataDir);
      await ready();
    },
    stop: async () => {
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
