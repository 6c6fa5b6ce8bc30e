import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CommandStatus } from '../../domain/command.ts';
import { FinalStatuses } from '../product-api/final-statuses.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

const STATUS_PATH = '/devices/BAT-1/commands/cmd_1';
const URL = `/api${STATUS_PATH}`;

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;
/** What the fake reports for cmd_1, per client. */
let statusOf: Record<string, CommandStatus> = {};
/** When set, the next status call waits for it before answering (a poll kept in flight). */
let holdNextPoll: Promise<void> | undefined;

const recordFor = (clientId: string) => ({
  id: 'cmd_1',
  deviceId: 'BAT-1',
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
  status: statusOf[clientId] ?? 'received',
  receivedAt: '2026-05-01T10:00:00Z',
  ...(statusOf[clientId] === 'cancelled'
    ? { cancelledAt: '2026-05-01T10:05:00Z', cancellReason: 'manuallyCancel' }
    : {}),
  // Only this client's answer carries its power: a shared answer would show.
  powerControl: { targetBatteryPowerW: POWER_OF[clientId] ?? 9 },
});
const POWER_OF: Record<string, number> = { client: 1, 'client-2': 2 };

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', STATUS_PATH, async (request) => {
    const hold = holdNextPoll;
    holdNextPoll = undefined;
    if (hold) await hold;
    return recordFor(fake.clientOf(request) ?? '?');
  });
  fake.on('DELETE', '/sites/PLANT-1', () => ({ message: 'offboarding success' }));
  fake.on('PUT', `${STATUS_PATH}/cancel`, (request) => {
    const clientId = fake.clientOf(request) ?? '?';
    statusOf[clientId] = 'cancelled';
    return { message: 'Command cancelled', commandId: 'cmd_1', timestamp: '2026-05-01T10:05:00Z' };
  });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  statusOf = {};
  holdNextPoll = undefined;
  fake.seen.length = 0;
  bff = await buildTestBff(fake);
  cookie = await signIn(bff.app);
  return () => bff.app.close();
});

const poll = (who = cookie) =>
  bff.app.inject({ method: 'GET', url: URL, headers: { cookie: who } });
const cancel = (who = cookie) =>
  bff.app.inject({ method: 'PUT', url: `${URL}/cancel`, headers: { cookie: who, ...CSRF } });
const unbind = () =>
  bff.app.inject({ method: 'DELETE', url: '/api/sites/PLANT-1', headers: { cookie, ...CSRF } });
const upstreamPolls = () =>
  fake.seen.filter((s) => s.method === 'GET' && s.url === STATUS_PATH).length;
const FOR_CLIENT = { powerControl: { targetBatteryPowerW: 1 } };
const FOR_CLIENT_2 = { powerControl: { targetBatteryPowerW: 2 } };

describe('without a database, status polls share upstream calls and final statuses are kept', () => {
  it('answers N polls of a completed command with one upstream call, however late', async () => {
    statusOf.client = 'completed';
    for (let i = 0; i < 50; i += 1) {
      const response = await poll();
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'completed', ...FOR_CLIENT });
      bff.clock.nowMs += 60_000;
    }
    expect(upstreamPolls()).toBe(1);
  });

  it('never answers one client, or one region, with what another was told', async () => {
    statusOf.client = 'completed';
    statusOf['client-2'] = 'completed';
    const other = await signIn(bff.app, { clientId: 'client-2', clientSecret: 'secret-2' });
    const otherRegion = await signIn(bff.app, { region: 'au' });

    expect((await poll()).json()).toMatchObject(FOR_CLIENT);
    expect((await poll(other)).json()).toMatchObject(FOR_CLIENT_2);
    expect(upstreamPolls()).toBe(2);
    await poll(otherRegion);
    expect(upstreamPolls()).toBe(3);

    bff.clock.nowMs += 60_000;
    expect((await poll()).json()).toMatchObject(FOR_CLIENT);
    expect((await poll(other)).json()).toMatchObject(FOR_CLIENT_2);
    expect(upstreamPolls()).toBe(3);
  });

  it('after a cancel answers polls from the cancel answer: no further upstream call', async () => {
    const before = await poll();
    expect(before.json()).toMatchObject({ status: 'received' });
    expect(upstreamPolls()).toBe(1);

    const cancelled = await cancel();
    expect(cancelled.statusCode).toBe(200);
    for (let i = 0; i < 10; i += 1) {
      const response = await poll();
      expect(response.json()).toMatchObject({ status: 'cancelled' });
      bff.clock.nowMs += 5_000;
    }
    expect(upstreamPolls()).toBe(1);
  });

  it('forgets kept final answers of a client that unbinds a site', async () => {
    statusOf.client = 'completed';
    await poll();
    expect((await unbind()).statusCode).toBe(204);
    bff.clock.nowMs += 60_000;
    await poll();
    expect(upstreamPolls()).toBe(2);
  });

  it('ends the reuse of answers with an unbind: the next poll asks the upstream', async () => {
    expect((await poll()).json()).toMatchObject({ status: 'received' });
    expect(upstreamPolls()).toBe(1);
    expect((await unbind()).statusCode).toBe(204);
    await poll();
    expect(upstreamPolls()).toBe(2);
  });

  it('serves no poll after an unbind from a poll that was in flight during it', async () => {
    let release = () => {};
    holdNextPoll = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inFlight = poll();
    await vi.waitFor(() => expect(upstreamPolls()).toBe(1), { timeout: 15_000 });
    expect((await unbind()).statusCode).toBe(204);
    statusOf.client = 'completed';
    // A poll after the unbind does not join the one in flight: it reaches the upstream itself.
    const after = poll();
    try {
      await vi.waitFor(() => expect(upstreamPolls()).toBe(2), { timeout: 15_000 });
    } finally {
      release();
    }
    expect((await after).json()).toMatchObject({ status: 'completed' });
    expect((await inFlight).statusCode).toBe(200);
    // Nor is the in-flight answer kept as a final status for later polls.
    await unbind();
    bff.clock.nowMs += 60_000;
    await poll();
    expect(upstreamPolls()).toBe(3);
  });

  it('with statusReuseMs 0 asks the upstream for every poll, final ones included', async () => {
    await bff.app.close();
    bff = await buildTestBff(fake, { statusReuseMs: 0 });
    cookie = await signIn(bff.app);
    statusOf.client = 'completed';
    for (let i = 0; i < 3; i += 1) await poll();
    expect(upstreamPolls()).toBe(3);
  });

  it('re-fetches a non-final answer once the reuse interval has passed', async () => {
    await poll();
    bff.clock.nowMs += 999;
    await poll();
    expect(upstreamPolls()).toBe(1);
    bff.clock.nowMs += 1;
    statusOf.client = 'executing';
    expect((await poll()).json()).toMatchObject({ status: 'executing' });
    expect(upstreamPolls()).toBe(2);
  });

  it('without a ledger writes the cancellation into the reused record, kept as final', async () => {
    await bff.app.close();
    bff = await buildTestBff(fake);
    cookie = await signIn(bff.app);
    expect((await poll()).json()).toMatchObject({ status: 'received' });
    expect((await cancel()).statusCode).toBe(200);
    expect((await poll()).json()).toMatchObject({
      status: 'cancelled',
      cancelReason: 'manuallyCancel',
      cancelledAt: '2026-05-01T10:05:00Z',
    });
    bff.clock.nowMs += 60_000;
    await poll();
    expect(upstreamPolls()).toBe(1);
  });

  it('asks the vendor after a cancel when no record was kept to write it into', async () => {
    expect((await cancel()).statusCode).toBe(200);
    expect((await poll()).json()).toMatchObject({ status: 'cancelled' });
    expect(upstreamPolls()).toBe(1);
  });
});

describe('FinalStatuses', () => {
  const record = (status: CommandStatus) => ({
    id: 'c',
    deviceId: 'BAT-1',
    powerControl: { targetBatteryPowerW: 1 },
    startTime: '2026-05-01T11:00:00Z',
    endTime: '2026-05-01T12:00:00Z',
    status,
    receivedAt: '2026-05-01T10:00:00Z',
  });

  it('keeps only records whose status is final', () => {
    const finals = new FinalStatuses(10);
    expect(finals.rememberIfFinal('a', record('received'))).toBe(false);
    expect(finals.rememberIfFinal('b', record('executing'))).toBe(false);
    expect(finals.rememberIfFinal('e', record('cancelled'))).toBe(true);
    expect(finals.rememberIfFinal('f', record('completed'))).toBe(true);
    expect(finals.size).toBe(2);
  });

  it('evicts the least recently used record beyond its capacity', () => {
    const finals = new FinalStatuses(2);
    finals.rememberIfFinal('a', record('completed'));
    finals.rememberIfFinal('b', record('completed'));
    finals.get('a');
    finals.rememberIfFinal('c', record('completed'));
    expect(finals.get('b')).toBeUndefined();
    expect(finals.get('a')).toBeDefined();
    expect(finals.get('c')).toBeDefined();
    expect(finals.size).toBe(2);
  });
});
