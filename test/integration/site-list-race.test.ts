/**
 * A site list read that started before a binding change and answered after it (docs/architecture.md,
 * Read model: site bindings), BFF + sandbox over real HTTP on the sandbox's clock: a relay holds
 * the vendor's answer to one site list read while the operator binds or unbinds a site, then lets
 * it land. What that answer says predates the change, so it must not undo it: a site just bound
 * keeps its devices followed, a site just unbound stays out of reach.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { SiteListSchema } from '#domain/device.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import { SubmissionResponseSchema } from '#domain/command.ts';
import type { BrowserClient, TestResponse } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    relay: true,
    followSandboxClock: true,
    bff: { testing: { readModelTickMs: 0 } },
  });
});
afterAll(() => stack?.close());

/**
 * Holds the answer to the BFF's next read of the vendor's site list: `held` resolves once the
 * vendor answered it (its answer is what the list was then), `release` lets it go on.
 */
function holdNextSiteList(): { held: Promise<void>; release: () => void } {
  const relay = stack.relay;
  if (!relay) throw new Error('the stack has a relay');
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let heldNow = (): void => undefined;
  const held = new Promise<void>((resolve) => {
    heldNow = resolve;
  });
  relay.plan = (method, path) => {
    if (method !== 'GET' || !path.split('?')[0]?.endsWith('/sites')) return 'pass';
    relay.plan = () => 'pass';
    heldNow();
    return { answerAfter: gate };
  };
  return { held, release };
}

async function signedIn(): Promise<BrowserClient> {
  await stack.admin.reset();
  await stack.forgetUpstream();
  const browser = stack.browser();
  expect((await browser.signIn({ ...DEMO_EU, operatorName: 'Ada Admin' })).status).toBe(200);
  return browser;
}

/** A window of 20 minutes half an hour ahead, on the sandbox's clock. */
async function laterWindow(): Promise<{ startTime: string; endTime: string }> {
  const startMs = Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
  return {
    startTime: new Date(startMs).toISOString(),
    endTime: new Date(startMs + 20 * MINUTE_MS).toISOString(),
  };
}

describe('a site list read that answers after a bind', () => {
  it("does not take the new site's devices out of reach: its batch is followed and confirmed", async () => {
    const reads = stack.bff.readModel.reads;
    const browser = await signedIn();
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);

    // The sites page reads the list; the vendor's answer (one site) is slow to land.
    const { held, release } = holdNextSiteList();
    const listed: Promise<TestResponse> = browser.get('/api/sites');
    await held;

    // Meanwhile the operator binds a second site and sends a batch to its devices.
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-002' })).status).toBe(201);
    const sent = await browser.request({
      method: 'POST',
      path: '/api/batches',
      json: {
        devices: ['BAT-EU-002-A', 'BAT-EU-002-B'],
        command: { powerControl: { targetBatteryPowerW: 1500 }, ...(await laterWindow()) },
      },
      headers: { 'idempotency-key': `"${randomUUID()}"` },
    });
    expect(sent.status).toBe(202);
    const { batchCommandId } = BatchSubmissionResponseSchema.parse(sent.json());
    if (!batchCommandId) throw new Error('the batch was answered at once: it has its ID');

    // The list read before the bind lands now: it names the first site only.
    release();
    const list = SiteListSchema.parse((await listed).json());
    expect(list.sites.map((site) => site.siteId)).toEqual(['PLANT-EU-001']);

    const outcome = async () => {
      const page = LedgerPageSchema.parse(
        (await browser.get(`/api/ledger?batchCommandId=${batchCommandId}&kind=batch`)).json(),
      );
      return page.entries[0]?.outcome;
    };
    // The batch page does not call its devices no longer followed: their site is bound.
    expect((await outcome())?.unbound ?? []).toEqual([]);
    // Their histories are read, and the batch's commands found there.
    for (let i = 0; i < 4 && (await outcome())?.confirmation !== 'confirmed'; i += 1) {
      await stack.admin.advanceClock(30_000);
      await reads.runDue();
    }
    expect((await outcome())?.confirmation).toBe('confirmed');
    expect((await outcome())?.commands?.map((c) => c.deviceId).sort()).toEqual([
      'BAT-EU-002-A',
      'BAT-EU-002-B',
    ]);
  }, 60_000);
});

describe('a site list read that answers after an unbind', () => {
  it("does not bring the unbound site's devices back: their commands are answered no more", async () => {
    const reads = stack.bff.readModel.reads;
    const browser = await signedIn();
    for (const siteId of ['PLANT-EU-001', 'PLANT-EU-002'])
      expect((await browser.post('/api/sites', { siteId })).status).toBe(201);
    await reads.runDue();
    await stack.admin.advanceClock(MINUTE_MS);
    const submitted = await browser.post('/api/devices/BAT-EU-002-A/commands', {
      powerControl: { targetBatteryPowerW: 900 },
      ...(await laterWindow()),
    });
    expect(submitted.status).toBe(202);
    const { id: commandId } = SubmissionResponseSchema.parse(submitted.json());
    const statusPath = `/api/devices/BAT-EU-002-A/commands/${commandId}`;
    expect((await browser.get(statusPath)).status).toBe(200);

    // A list read (both sites) is slow to land; meanwhile the operator unbinds the second site.
    const { held, release } = holdNextSiteList();
    const listed: Promise<TestResponse> = browser.get('/api/sites');
    await held;
    expect((await browser.delete('/api/sites/PLANT-EU-002')).status).toBe(204);
    expect((await browser.get(statusPath)).status).toBe(404);

    release();
    const list = SiteListSchema.parse((await listed).json());
    expect(list.sites.map((site) => site.siteId).sort()).toEqual(['PLANT-EU-001', 'PLANT-EU-002']);

    // The unbind stands: nothing of the site's devices is answered, nor are they read.
    expect((await browser.get(statusPath)).status).toBe(404);
    const before = (await stack.admin.stats()) as { byDevice: Record<string, { calls: number }> };
    await stack.admin.advanceClock(MINUTE_MS);
    await reads.runDue();
    const after = (await stack.admin.stats()) as { byDevice: Record<string, { calls: number }> };
    expect(after.byDevice['eu BAT-EU-002-A']?.calls).toBe(
      before.byDevice['eu BAT-EU-002-A']?.calls,
    );
  }, 60_000);
});
