import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followSandboxClock } from '../scripts/sandbox-clock.ts';
import { buildSandboxApp } from '../src/sandbox/app.ts';

const HOUR_MS = 3600_000;

/**
 * `npm start` hands the BFF the sandbox's clock (docs/decisions/007-device-call-budget.md, section
 * 1): moving the sandbox clock through its admin API moves the clock the BFF's budget counts on.
 */
describe('followSandboxClock', () => {
  let sandbox: FastifyInstance;
  let clock: () => number;

  beforeAll(async () => {
    sandbox = await buildSandboxApp({
      dataDir: '.',
      inMemory: true,
      fixture: 'demo',
      adminEnabled: true,
    });
    clock = await followSandboxClock(sandbox);
  });
  afterAll(() => sandbox.close());

  const sandboxNowMs = async () =>
    Date.parse((await sandbox.inject({ url: '/_sandbox/clock' })).json<{ now: string }>().now);

  it('reads as the sandbox clock, moved forward and back to the wall clock', async () => {
    expect(Math.abs(clock() - Date.now())).toBeLessThan(1000);
    await sandbox.inject({
      method: 'POST',
      url: '/_sandbox/clock',
      payload: { advanceMs: HOUR_MS },
    });
    const movedMs = await sandboxNowMs();
    expect(clock()).toBeLessThanOrEqual((await sandboxNowMs()) + 1);
    expect(clock()).toBeGreaterThan(movedMs - 1000);
    expect(clock() - Date.now()).toBeGreaterThan(HOUR_MS - 1000);
    await sandbox.inject({ method: 'POST', url: '/_sandbox/reset' });
    expect(Math.abs(clock() - Date.now())).toBeLessThan(1000);
  });

  it('keeps its reading when a move is refused', async () => {
    const before = clock() - Date.now();
    const refused = await sandbox.inject({
      method: 'POST',
      url: '/_sandbox/clock',
      payload: { now: '2000-01-01T00:00:00Z' },
    });
    expect(refused.statusCode).toBe(400);
    expect(Math.abs(clock() - Date.now() - before)).toBeLessThan(1000);
  });
});
