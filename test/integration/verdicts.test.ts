/**
 * A verdict per device per command against the sandbox's physical model (docs/verification.md),
 * BFF + sandbox over real HTTP on the sandbox's clock: after a window ends, each device gets the
 * verdict of what its battery did (a following device delivered, one that ignores commands not
 * following), from exactly one telemetry read of it, within the job's delay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubmissionResponseSchema } from '#domain/command.ts';
import { NotificationPageSchema } from '#domain/notifications.ts';
import { DeviceVerdictsAnswerSchema } from '#domain/verdict-answer.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const FOLLOWING = 'BAT-EU-001-A';
const IGNORING = 'BAT-EU-001-B';

let stack: Stack;

beforeAll(async () => {
  // No refresher ticks: the only calls are the submissions and the verification's reads.
  stack = await startStack({ followSandboxClock: true, bff: { testing: { readModelTickMs: 0 } } });
});
afterAll(() => stack?.close());

/** The sandbox's counts of telemetry history and configuration reads. */
async function telemetryReads(): Promise<{ historicalData: number; configuration: number }> {
  const { byRoute } = (await stack.admin.stats()) as { byRoute: Record<string, number> };
  return {
    historicalData: byRoute['eu GET /devices/:deviceId/historicalData'] ?? 0,
    configuration: byRoute['eu GET /devices/:deviceId/configuration'] ?? 0,
  };
}

async function verdictOf(browser: BrowserClient, deviceId: string) {
  const answer = await browser.get(`/api/devices/${deviceId}/verdicts`);
  expect(answer.status).toBe(200);
  return DeviceVerdictsAnswerSchema.parse(answer.json()).verdicts[0];
}

/** Real time: the queue's job runs in the background; at most 5 s. */
async function waitForVerdict(browser: BrowserClient, deviceId: string) {
  for (let tries = 0; tries < 100; tries += 1) {
    const verdict = await verdictOf(browser, deviceId);
    if (verdict) return verdict;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no verdict for ${deviceId}`);
}

/** Real time: until the queue's jobs have run `count` verifications in all; at most 5 s. */
async function ranVerifications(count: number) {
  const { outcomes } = stack.bff.verdicts.queue.counts;
  for (let tries = 0; tries < 100; tries += 1) {
    if (Object.values(outcomes).reduce((sum, n) => sum + n, 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} verifications ran`);
}

describe('the verdict of each device after a window', () => {
  it('a following device delivered, one ignoring commands not following, each from one telemetry read', async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    await stack.admin.setDevice(IGNORING, { behaviour: 'ignoresCommands' });
    const browser = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);

    const nowMs = await stack.admin.nowMs();
    const startMs = Math.ceil((nowMs + 5 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
    const endMs = startMs + 30 * MINUTE_MS;
    const command = {
      powerControl: { targetBatteryPowerW: 3000 },
      startTime: new Date(startMs).toISOString(),
      endTime: new Date(endMs).toISOString(),
    };
    const commandIds: string[] = [];
    for (const deviceId of [FOLLOWING, IGNORING]) {
      const submitted = await browser.post(`/api/devices/${deviceId}/commands`, command);
      expect(submitted.status).toBe(202);
      commandIds.push(SubmissionResponseSchema.parse(submitted.json()).id);
    }
    const ignoringCommandId = commandIds[1] as string;
    const readsBefore = await telemetryReads();

    const { queue } = stack.bff.verdicts;
    await queue.start();
    // Not before one sampling period after the end.
    await stack.admin.setClock(new Date(endMs + 30_000));
    expect(await queue.recheck()).toBe(0);
    await stack.admin.setClock(new Date(endMs + MINUTE_MS));
    expect(await queue.recheck()).toBe(2);

    await ranVerifications(2);
    const following = await waitForVerdict(browser, FOLLOWING);
    // Idle at 100% from the start of its window, it never followed: no cut-off could have held it,
    // so its verdict needs no configuration read.
    const ignoring = await waitForVerdict(browser, IGNORING);
    expect(ignoring?.commandId).toBe(ignoringCommandId);
    expect(following).toMatchObject({
      deviceId: FOLLOWING,
      judgedFrom: command.startTime,
      judgedTo: command.endTime,
      result: {
        verdict: 'delivered',
        commandedEnergyWh: 1500,
        samples: { expected: 30, present: 30 },
      },
    });
    // Delivered: at least 90% of the samples within the tolerance of 3 kW.
    expect(following?.result.samples.following).toBeGreaterThanOrEqual(27);
    expect(following?.result.deliveredEnergyWh).toBeGreaterThan(0.9 * 1500);
    expect(following?.samples?.atMs).toHaveLength(30);
    expect(ignoring).toMatchObject({
      deviceId: IGNORING,
      result: { verdict: 'notFollowing', samples: { expected: 30, present: 30 } },
    });
    // One telemetry read per device, no configuration read, none for reading the verdicts.
    expect(await telemetryReads()).toEqual({
      historicalData: readsBefore.historicalData + 2,
      configuration: readsBefore.configuration,
    });
    // The operator who sent it is told the ignoring device did not follow; not of the other.
    const inbox = NotificationPageSchema.parse((await browser.get('/api/notifications')).json());
    const titles = inbox.notifications.map((notification) => notification.title);
    expect(titles).toContain(`${IGNORING} did not follow its command`);
    expect(titles).not.toContain(`${FOLLOWING} did not follow its command`);
  });
});
