import { describe, expect, it } from 'vitest';
import { NotificationSchema } from '#domain/notifications.ts';
import type { Person } from '#domain/account.ts';
import { planNotification, type NotifyInput } from '../notifications/notification-rules.ts';

const account = { region: 'eu', clientId: 'client' } as const;
const alice: Person = { kind: 'operator', issuer: 'https://idp.example', subject: 'alice' };
const bob: Person = { kind: 'operator', issuer: 'https://idp.example', subject: 'bob' };
const window = { startTime: '2026-05-01T11:00:00Z', endTime: '2026-05-01T12:00:00Z' };

/** The plan's words and link make a valid notification as the inbox answers it. */
function expectValidNotification(input: NotifyInput) {
  const plan = planNotification(input);
  const answer = NotificationSchema.safeParse({
    id: '1',
    kind: plan.facts.kind,
    title: plan.title,
    body: plan.body,
    link: plan.link,
    timeZone: plan.timeZone,
    window: plan.window,
    createdAt: '2026-05-01T10:00:00Z',
  });
  expect(answer.success).toBe(true);
  return plan;
}

describe('who receives which notification', () => {
  it('a command cancelled by a device fault goes to the person who sent it, linking its device', () => {
    const plan = expectValidNotification({
      account,
      kind: 'commandCancelled',
      deviceId: 'BAT-EU-001-A',
      commandId: 'cmd_1',
      cancelReason: 'deviceFault',
      siteId: 'PLANT-EU-001',
      timeZone: 'Europe/Berlin',
      ...window,
      madeBy: alice,
    });
    expect(plan.audience).toEqual({ kind: 'person', person: alice });
    expect(plan.title).toBe('Command on BAT-EU-001-A cancelled: device fault');
    expect(plan.body).toMatch(/reported a fault/);
    expect(plan.link).toBe('/sites/PLANT-EU-001/devices/BAT-EU-001-A');
    expect(plan.window).toEqual(window);
    expect(plan.timeZone).toBe('Europe/Berlin');
  });

  it('a command cancelled as not supported or not started, sent outside powerdeck, goes to everyone', () => {
    for (const cancelReason of ['notSupported', 'startTimeExpire'] as const) {
      const plan = expectValidNotification({
        account,
        kind: 'commandCancelled',
        deviceId: 'BAT-1',
        commandId: 'cmd_2',
        cancelReason,
        madeBy: undefined,
      });
      expect(plan.audience).toEqual({ kind: 'everyone' });
      // Without its site, the sites page, which lists every device.
      expect(plan.link).toBe('/sites');
    }
    expect(
      planNotification({
        account,
        kind: 'commandCancelled',
        deviceId: 'BAT-1',
        commandId: 'cmd_2',
        cancelReason: 'startTimeExpire',
        madeBy: undefined,
      }).body,
    ).toMatch(/still offline a minute after the start time/);
  });

  it('a batch with failed devices goes to the person who sent it, linking the batch', () => {
    const plan = expectValidNotification({
      account,
      kind: 'batchDevicesFailed',
      batchCommandId: 'batch_7',
      failedDevices: 3,
      totalDevices: 10,
      madeBy: { kind: 'named', name: 'Alice' },
    });
    expect(plan.audience).toEqual({ kind: 'person', person: { kind: 'named', name: 'Alice' } });
    expect(plan.title).toBe('Batch: 3 of 10 devices failed');
    expect(plan.link).toBe('/batches/batch_7');
  });

  it('a fleet job with failed devices goes to the person who made it, linking the job', () => {
    const plan = expectValidNotification({
      account,
      kind: 'fleetJobDevicesFailed',
      jobId: '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b',
      failedDevices: 1,
      totalDevices: 1,
      madeBy: { kind: 'client' },
    });
    expect(plan.audience).toEqual({ kind: 'person', person: { kind: 'client' } });
    expect(plan.title).toBe('Fleet job: 1 of 1 device failed');
    expect(plan.link).toBe('/fleet-jobs/0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b');
  });

  it('a queued change sent goes to the person who made it', () => {
    const plan = expectValidNotification({
      account,
      kind: 'queuedChangeSent',
      change: 'replace',
      deviceId: 'BAT-1',
      siteId: 'PLANT-1',
      ...window,
      madeBy: bob,
    });
    expect(plan.audience).toEqual({ kind: 'person', person: bob });
    expect(plan.title).toBe('Queued window change for BAT-1 sent');
  });

  it('a queued change refused by the vendor or not sent goes to everyone of the account, with the reason in words', () => {
    const detail =
      'The window overlaps another command of BAT-1, which is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).';
    const refused = expectValidNotification({
      account,
      kind: 'queuedChangeFailed',
      change: 'submit',
      deviceId: 'BAT-1',
      siteId: 'PLANT-1',
      failure: 'refused',
      detail,
      ...window,
      madeBy: { person: alice, name: 'Alice' },
    });
    expect(refused.audience).toEqual({ kind: 'everyone' });
    expect(refused.title).toBe('Queued command for BAT-1 refused by the vendor');
    expect(refused.body).toBe(
      `It waited for the device's next free slot with the vendor, which refused it when it went. ${detail} Made by Alice.`,
    );
    expect(refused.link).toBe('/sites/PLANT-1/devices/BAT-1');

    const notSent = expectValidNotification({
      account,
      kind: 'queuedChangeFailed',
      change: 'batch',
      deviceId: 'BAT-1',
      deviceCount: 3,
      failure: 'not_sent',
      detail: 'Its batch submission did not go through after 6 tries, so the change stopped there.',
      madeBy: { person: { kind: 'client' } },
    });
    expect(notSent.audience).toEqual({ kind: 'everyone' });
    expect(notSent.title).toBe('Queued batch for BAT-1 and 2 more devices not sent');
    expect(notSent.body).not.toMatch(/Made by/);
  });

  it('a queued change withdrawn goes to the person who made it unless they withdrew it themselves', () => {
    const byPowerdeck = expectValidNotification({
      account,
      kind: 'queuedChangeWithdrawn',
      change: 'submit',
      deviceId: 'BAT-1',
      reason: 'windowPassed',
      madeBy: alice,
      withdrawnBy: undefined,
    });
    expect(byPowerdeck.audience).toEqual({ kind: 'person', person: alice });
    expect(byPowerdeck.body).toMatch(/window began before the device had a free slot/);

    const byBob = planNotification({
      account,
      kind: 'queuedChangeWithdrawn',
      change: 'cancel',
      deviceId: 'BAT-1',
      reason: 'operator',
      madeBy: alice,
      withdrawnBy: { person: bob, name: 'Bob Builder' },
    });
    expect(byBob.audience).toEqual({ kind: 'person', person: alice });
    expect(byBob.body).toBe('Bob Builder withdrew it before it was sent.');

    const byHerself = planNotification({
      account,
      kind: 'queuedChangeWithdrawn',
      change: 'cancel',
      deviceId: 'BAT-1',
      reason: 'operator',
      madeBy: alice,
      withdrawnBy: { person: { ...alice }, name: 'Alice' },
    });
    expect(byHerself.audience).toEqual({ kind: 'nobody' });
  });

  it('a site unbound goes to everyone of the account but the person who unbound it', () => {
    const plan = expectValidNotification({
      account,
      kind: 'siteUnbound',
      siteId: 'PLANT-EU-002',
      siteName: 'Harbour plant',
      unboundBy: { person: { kind: 'named', name: 'Alice' } },
    });
    expect(plan.audience).toEqual({ kind: 'everyone', except: { kind: 'named', name: 'Alice' } });
    expect(plan.title).toBe('Site Harbour plant (PLANT-EU-002) unbound');
    expect(plan.body).toMatch(/^Alice unbound it\./);
    expect(plan.link).toBe('/sites');
  });

  it('a site unbound says how many of its commands were left waiting or executing on the vendor', () => {
    const plan = expectValidNotification({
      account,
      kind: 'siteUnbound',
      siteId: 'PLANT-EU-002',
      waitingCommands: 2,
      unboundBy: { person: { kind: 'named', name: 'Alice' } },
    });
    expect(plan.body).toBe(
      'Alice unbound it, leaving 2 waiting or executing commands on the vendor: they still run there, and powerdeck can no longer follow or cancel them. Its devices and their commands are out of reach until the site is bound again on the Sites page.',
    );
    expect(plan.facts).toMatchObject({ waitingCommands: 2 });
  });
  it('a command not followed goes to the person who sent it, with what the battery gave', () => {
    const plan = expectValidNotification({
      account,
      kind: 'commandNotFollowed',
      deviceId: 'BAT-EU-100-03',
      commandId: 'cmd_3',
      deliveredPercent: 4,
      siteId: 'PLANT-EU-100',
      ...window,
      madeBy: alice,
    });
    expect(plan.audience).toEqual({ kind: 'person', person: alice });
    expect(plan.title).toBe('BAT-EU-100-03 did not follow its command');
    expect(plan.body).toMatch(/it gave 4% of the commanded energy/);
    expect(plan.link).toBe('/sites/PLANT-EU-100/devices/BAT-EU-100-03');
    expect(plan.window).toEqual(window);
  });

  it('a device silent in its window, sent outside powerdeck, goes to everyone', () => {
    const plan = expectValidNotification({
      account,
      kind: 'deviceSilentInWindow',
      deviceId: 'BAT-1',
      commandId: 'cmd_4',
      measuredPercent: 20,
      madeBy: undefined,
    });
    expect(plan.audience).toEqual({ kind: 'everyone' });
    expect(plan.body).toMatch(/measurements of 20% of the window only/);
  });

  it('an event under its threshold goes to the person who sent it, linking the batch or the job', () => {
    const facts = { deliveredPercent: 62, thresholdPercent: 80, totalDevices: 20, ...window };
    const batch = expectValidNotification({
      account,
      kind: 'eventUnderDelivered',
      batchCommandId: 'batch_9',
      ...facts,
      madeBy: bob,
    });
    expect(batch.audience).toEqual({ kind: 'person', person: bob });
    expect(batch.title).toBe('Batch delivered 62% of what was commanded');
    expect(batch.body).toMatch(
      /20 devices gave 62% of the commanded energy, below the 80% expected/,
    );
    expect(batch.link).toBe('/batches/batch_9');
    const job = planNotification({
      account,
      kind: 'eventUnderDelivered',
      jobId: '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b',
      ...facts,
      madeBy: bob,
    });
    expect(job.title).toMatch(/^Fleet job delivered/);
    expect(job.link).toBe('/fleet-jobs/0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b');
  });
});
