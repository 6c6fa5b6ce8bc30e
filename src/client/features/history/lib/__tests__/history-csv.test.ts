import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { historyCsv } from '../history-csv.ts';

const COMPLETED: StatusRecord = {
  id: 'cmd-1',
  deviceId: 'BAT-EU-001-A',
  powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
  startTime: '2026-10-25T00:30:00Z',
  endTime: '2026-10-25T01:30:00Z',
  status: 'completed',
  receivedAt: '2026-10-24T23:00:00Z',
  startedAt: '2026-10-25T00:30:00Z',
  completedAt: '2026-10-25T01:30:00Z',
};
const CANCELLED: StatusRecord = {
  id: 'cmd-2',
  deviceId: 'BAT-EU-001-A',
  batchCommandId: 'batch-1',
  powerControl: { siteExportLimitW: 5000 },
  startTime: '2026-10-26T10:00:00Z',
  endTime: '2026-10-26T11:00:00Z',
  status: 'cancelled',
  receivedAt: '2026-10-26T09:00:00Z',
  cancelledAt: '2026-10-26T09:30:00Z',
  cancelReason: 'manuallyCancel',
};

const parse = (csv: string) => Papa.parse<Record<string, string>>(csv, { header: true });

describe('history CSV', () => {
  it('has one row per command, in order, with UTC and site-local timestamps', () => {
    const { data, meta } = parse(historyCsv([COMPLETED, CANCELLED], 'Europe/Berlin', undefined));
    expect(data).toHaveLength(2);
    expect(meta.fields).not.toContain('operator');
    expect(data[0]).toMatchObject({
      commandId: 'cmd-1',
      status: 'completed',
      targetBatteryPowerW: '-3000',
      chargeCutoffSocPercent: '90',
      siteExportLimitW: '',
      startTimeUtc: '2026-10-25T00:30:00.000Z',
      // 00:30 UTC is still summer time in Berlin (the change is at 01:00 UTC).
      startTimeSite: '2026-10-25T02:30:00+02:00',
      endTimeSite: '2026-10-25T02:30:00+01:00',
      siteTimeZone: 'Europe/Berlin',
      cancelledAtUtc: '',
    });
    expect(data[1]).toMatchObject({
      commandId: 'cmd-2',
      batchCommandId: 'batch-1',
      status: 'cancelled',
      cancelReason: 'manuallyCancel',
      cancelReasonWords: 'Cancelled by an operator',
      cancelledAtSite: '2026-10-26T10:30:00+01:00',
    });
  });

  it('adds the operator column when the ledger answered, escaping formula-like names', () => {
    const csv = historyCsv([COMPLETED, CANCELLED], 'UTC', (c) =>
      c.id === 'cmd-1' ? '=HYPERLINK("x")' : undefined,
    );
    const { data } = parse(csv);
    expect(data[0]?.operator).toBe(`'=HYPERLINK("x")`);
    expect(data[1]?.operator).toBe('');
    expect(csv.split('\r\n')[0]).toMatch(/^commandId,deviceId,/);
  });
});
