import { describe, expect, it } from 'vitest';
import { LedgerEntrySchema, LedgerQuerySchema } from '../ledger.ts';

describe('LedgerQuerySchema', () => {
  it('accepts the filters and coerces limit', () => {
    expect(
      LedgerQuerySchema.parse({
        deviceId: 'BAT-EU-001-A',
        limit: '20',
        from: '2026-05-01T00:00:00Z',
      }),
    ).toEqual({ deviceId: 'BAT-EU-001-A', limit: 20, from: '2026-05-01T00:00:00Z' });
  });

  it('refuses unknown filters, bad IDs and oversize pages', () => {
    expect(LedgerQuerySchema.safeParse({ secret: 'x' }).success).toBe(false);
    expect(LedgerQuerySchema.safeParse({ deviceId: '../x' }).success).toBe(false);
    expect(LedgerQuerySchema.safeParse({ limit: '501' }).success).toBe(false);
    expect(LedgerQuerySchema.safeParse({ before: 'abc' }).success).toBe(false);
  });
});

describe('LedgerEntrySchema', () => {
  /** What the entries below share: settled, of the EU demo client, made at 10:00 on 1 May. */
  const settledInEu = {
    state: 'succeeded',
    region: 'eu',
    clientId: 'demo-eu',
    createdAt: '2026-05-01T10:00:00Z',
  };

  it('reads a settled submission', () => {
    const entry = {
      id: '7',
      kind: 'submit',
      ...settledInEu,
      deviceId: 'BAT-EU-001-A',
      commandId: 'cmd_1',
      startTime: '2026-05-01T11:00:00Z',
      endTime: '2026-05-01T12:00:00Z',
      request: { powerControl: { targetBatteryPowerW: 100 } },
      outcome: { status: 202, commands: [{ deviceId: 'BAT-EU-001-A', id: 'cmd_1' }] },
      completedAt: '2026-05-01T10:00:01Z',
    };
    expect(LedgerEntrySchema.parse(entry)).toEqual(entry);
  });

  it('reads the entries of the version before the vendor contract: old outcomes and errors', () => {
    const oldBatch = {
      id: '8',
      kind: 'batch',
      ...settledInEu,
      deviceIds: ['BAT-EU-001-A', 'BAT-EU-001-B'],
      batchCommandId: 'batch_1',
      outcome: {
        status: 202,
        commands: [
          { deviceId: 'BAT-EU-001-A', id: 'cmd_1' },
          { deviceId: 'BAT-EU-001-B', id: 'cmd_2' },
        ],
      },
    };
    expect(LedgerEntrySchema.parse(oldBatch).outcome?.confirmation).toBeUndefined();
    const oldCancel = {
      id: '9',
      kind: 'batchCancel',
      ...settledInEu,
      batchCommandId: 'batch_1',
      outcome: {
        status: 200,
        results: [
          {
            deviceId: 'BAT-EU-001-A',
            commandId: 'cmd_1',
            success: false,
            status: 'completed',
            error: { code: 'not_cancellable', message: 'done', details: { x: 1 } },
          },
        ],
      },
    };
    expect(LedgerEntrySchema.parse(oldCancel).outcome?.results?.[0]?.error).toEqual({
      code: 'not_cancellable',
      message: 'done',
    });
  });

  it('records a site time zone set by an administrator', () => {
    const entry = {
      id: '10',
      kind: 'siteTimeZone',
      state: 'succeeded',
      region: 'au',
      clientId: 'demo-au',
      siteId: 'PLANT-AU-001',
      timeZone: 'Australia/Brisbane',
      request: { timeZone: 'Australia/Brisbane' },
      createdAt: '2026-11-25T10:00:00Z',
    };
    expect(LedgerEntrySchema.parse(entry)).toEqual(entry);
  });
});
