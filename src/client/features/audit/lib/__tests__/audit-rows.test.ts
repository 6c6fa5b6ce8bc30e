import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '#domain/ledger.ts';
import { auditCsv, auditRow, operatorsOf } from '../audit-rows.ts';

const entry: LedgerEntry = {
  id: '7',
  kind: 'submit',
  state: 'succeeded',
  region: 'eu',
  clientId: 'demo-eu',
  operatorName: 'Dan Dispatcher',
  operator: {
    issuer: 'https://id.example.com',
    subject: 'u-2',
    name: 'Dan Dispatcher',
    email: 'dan@example.com',
  },
  deviceId: 'BAT-EU-001-A',
  siteId: 'PLANT-EU-001',
  timeZone: 'Europe/Berlin',
  commandId: 'cmd_1',
  createdAt: '2026-11-23T10:00:00.000Z',
};

describe('the audit rows', () => {
  it('say who did what, on the site clock with UTC', () => {
    expect(auditRow(entry)).toMatchObject({
      who: 'Dan Dispatcher',
      email: 'dan@example.com',
      what: 'Scheduled a command',
      state: 'done',
      about: 'PLANT-EU-001 · BAT-EU-001-A · cmd_1',
      createdAtUtc: '2026-11-23T10:00:00.000Z',
      timeZone: 'Europe/Berlin',
    });
    expect(auditRow(entry).createdAtSite).toContain('11:00');
  });

  it("say which zone an administrator set for a site, or that they went back to the vendor's offset", () => {
    const set: LedgerEntry = {
      ...entry,
      kind: 'siteTimeZone',
      deviceId: undefined,
      commandId: undefined,
      siteId: 'PLANT-AU-002',
      timeZone: 'Australia/Adelaide',
    };
    expect(auditRow(set).what).toBe("Set a site's time zone to Australia/Adelaide");
    expect(auditRow({ ...set, timeZone: undefined }).what).toBe(
      "Cleared a site's time zone: the vendor's offset again",
    );
  });

  it('say why a change was refused, in the words the BFF gave it', () => {
    const reason =
      'The window overlaps another command of BAT-EU-001-A, which is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).';
    const refused: LedgerEntry = {
      ...entry,
      state: 'failed',
      commandId: undefined,
      outcome: { status: 409, error: { code: 'window_overlap', message: reason } },
    };
    expect(auditRow(refused).state).toBe(`refused: ${reason}`);
    expect(auditRow({ ...refused, outcome: undefined }).state).toBe('refused');
  });

  it('fall back to the typed name, then the client ID, without a company sign-in', () => {
    const typed: LedgerEntry = { ...entry, operator: undefined };
    expect(auditRow(typed).who).toBe('Dan Dispatcher');
    expect(auditRow({ ...typed, operatorName: undefined }).who).toBe('demo-eu');
  });

  it('say who registered, replaced or tried a vendor connection, and how it ended', () => {
    const admin = {
      issuer: 'https://id.example.com',
      subject: 'u-1',
      name: 'Ada Admin',
      email: 'ada@example.com',
    };
    const registered: LedgerEntry = {
      id: '9',
      kind: 'connection',
      state: 'succeeded',
      region: 'eu',
      clientId: 'demo-eu',
      operatorName: 'Ada Admin',
      operator: admin,
      request: { change: 'register', clientId: 'demo-eu' },
      outcome: { status: 200, checked: true },
      createdAt: '2026-11-23T09:00:00.000Z',
    };
    expect(auditRow(registered)).toMatchObject({
      who: 'Ada Admin',
      what: 'Registered a vendor connection',
      about: 'Europe · client ID demo-eu',
      state: 'done, checked',
      createdAtSite: undefined,
    });
    expect(
      auditRow({
        ...registered,
        request: { change: 'replace', clientId: 'demo-eu-2', previousClientId: 'demo-eu' },
        outcome: { status: 200, checked: false },
      }),
    ).toMatchObject({
      what: 'Replaced a vendor connection',
      about: 'Europe · client ID demo-eu-2 · was demo-eu',
      state: 'done, saved without a check',
    });
    expect(
      auditRow({
        ...registered,
        state: 'failed',
        outcome: { status: 422, error: { code: 'connection_refused', message: 'refused' } },
      }).state,
    ).toBe('refused by the token endpoint, not saved');
  });

  it('list each person once for the filter', () => {
    expect(operatorsOf([entry, { ...entry, id: '8' }])).toEqual([
      { subject: 'u-2', label: 'Dan Dispatcher (dan@example.com)' },
    ]);
  });

  it('export as CSV with formulae escaped', () => {
    const csv = auditCsv([
      auditRow({
        ...entry,
        operator: {
          issuer: 'https://id.example.com',
          subject: 'u-2',
          name: '=HYPERLINK("x")',
          email: 'dan@example.com',
        },
      }),
    ]);
    const parsed = Papa.parse<Record<string, string>>(csv, { header: true });
    expect(parsed.data[0]).toMatchObject({
      operator: `'=HYPERLINK("x")`,
      email: 'dan@example.com',
      action: 'Scheduled a command',
      createdAtUtc: '2026-11-23T10:00:00.000Z',
      siteTimeZone: 'Europe/Berlin',
    });
  });
});
