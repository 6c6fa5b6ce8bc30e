import { describe, expect, it } from 'vitest';
import {
  FLEET_PICTURE_LIMIT,
  fleetPictureOf,
  FleetPictureSchema,
  runningEventsOf,
  socBandOf,
  type FleetDevice,
  type FleetPictureInput,
} from '../fleet-picture.ts';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const MINUTE = 60_000;

const device = (
  deviceId: string,
  siteId: string,
  batteryPowerW: number | undefined,
  extra: { socPercent?: number; gridPowerW?: number; pvPowerW?: number; ageMs?: number } = {},
): FleetDevice => ({
  deviceId,
  siteId,
  capacityKwh: 10,
  latest:
    batteryPowerW === undefined
      ? undefined
      : {
          atMs: NOW - (extra.ageMs ?? MINUTE),
          batteryPowerW,
          socPercent: extra.socPercent ?? 50,
          gridPowerW: extra.gridPowerW ?? 0,
          pvPowerW: extra.pvPowerW ?? 0,
        },
});

const picture = (input: Partial<FleetPictureInput>) =>
  FleetPictureSchema.parse(
    fleetPictureOf({
      devices: [],
      sites: [],
      running: [],
      verdicts: [],
      nowMs: NOW,
      silentAfterMs: 10 * MINUTE,
      attentionForMs: 24 * 60 * MINUTE,
      ...input,
    }),
  );

describe('fleetPictureOf', () => {
  it('adds charging and discharging power apart, per site and for the region', () => {
    const result = picture({
      devices: [
        device('A-1', 'A', 3000, { gridPowerW: -2500, socPercent: 80 }),
        device('A-2', 'A', -1000, { gridPowerW: 1500, pvPowerW: 200, socPercent: 20 }),
        device('B-1', 'B', 500, { socPercent: 100 }),
      ],
      sites: [{ siteId: 'A', siteName: 'Alpha', timeZone: 'Europe/Berlin' }],
    });
    expect(result.power).toEqual({
      dischargingW: 3500,
      chargingW: 1000,
      pvW: 200,
      gridImportW: 1500,
      gridExportW: 2500,
    });
    expect(result.devices).toEqual({ total: 3, reporting: 3, silent: 0 });
    expect(result.energy).toEqual({ storedKwh: 20, capacityKwh: 30 });
    expect(result.socBands[2]).toBe(1);
    expect(result.socBands[8]).toBe(1);
    expect(result.socBands[9]).toBe(1);
    // The site moving most power first, with its name and mean state of charge.
    expect(result.sites[0]).toMatchObject({
      siteId: 'A',
      siteName: 'Alpha',
      dischargingW: 3000,
      chargingW: 1000,
      devices: 2,
      reporting: 2,
      socPercent: 50,
    });
    expect(result.snapshotAt).toBe(new Date(NOW - MINUTE).toISOString());
  });

  it('counts a device without a recent sample silent, leaves it out of the sums and asks attention', () => {
    const result = picture({
      devices: [
        device('A-1', 'A', 3000),
        device('A-2', 'A', 3000, { ageMs: 11 * MINUTE }),
        device('A-3', 'A', undefined),
      ],
    });
    expect(result.devices).toEqual({ total: 3, reporting: 1, silent: 2 });
    expect(result.power.dischargingW).toBe(3000);
    expect(result.attention.map((line) => [line.deviceId, line.reason])).toEqual([
      ['A-2', 'silent'],
      ['A-3', 'silent'],
    ]);
  });

  it('shows what runs now with what its reporting devices give', () => {
    const result = picture({
      devices: [device('A-1', 'A', 2000), device('A-2', 'A', 500), device('A-3', 'A', undefined)],
      running: [
        {
          kind: 'batch',
          id: 'entry-1',
          batchCommandId: 'batch_1',
          startMs: NOW - 30 * MINUTE,
          endMs: NOW + 30 * MINUTE,
          deviceIds: ['A-1', 'A-2', 'A-3'],
          commandedW: 9000,
        },
        {
          kind: 'command',
          id: 'entry-2',
          startMs: NOW + MINUTE,
          endMs: NOW + 2 * MINUTE,
          deviceIds: ['A-1'],
          commandedW: 1000,
        },
      ],
    });
    expect(result.running).toHaveLength(1);
    expect(result.running[0]).toMatchObject({
      kind: 'batch',
      batchCommandId: 'batch_1',
      devices: 3,
      commandedW: 9000,
      measuredW: 2500,
      measuredDevices: 2,
    });
  });

  it('asks attention for recent verdicts that went wrong, once per device, before silent devices', () => {
    const verdicts = (deviceId: string, ...list: ('notFollowing' | 'delivered' | 'noData')[]) => ({
      deviceId,
      siteId: 'A',
      verdicts: list.map((verdict, index) => ({
        verdict,
        commandId: `cmd_${deviceId}_${index}`,
        endMs: NOW - (index + 1) * 60 * MINUTE,
      })),
    });
    const result = picture({
      devices: [
        device('A-1', 'A', 0),
        device('A-2', 'A', undefined),
        device('A-9', 'A', undefined),
      ],
      verdicts: [
        verdicts('A-1', 'notFollowing', 'delivered', 'notFollowing'),
        verdicts('A-2', 'noData'),
        verdicts('A-3', 'delivered', 'notFollowing', 'notFollowing'),
        verdicts('A-4', 'notFollowing'),
      ],
      attentionForMs: 2 * 60 * MINUTE,
    });
    expect(result.attention.map((line) => [line.deviceId, line.reason])).toEqual([
      ['A-1', 'repeatedlyNotFollowing'],
      ['A-2', 'noData'],
      ['A-3', 'repeatedlyNotFollowing'],
      ['A-4', 'notFollowing'],
      ['A-9', 'silent'],
    ]);
    const old = picture({
      verdicts: [verdicts('A-4', 'notFollowing')],
      attentionForMs: 30 * MINUTE,
    });
    expect(old.attention).toEqual([]);
  });

  it('lists at most the limit of sites, counting them all', () => {
    const devices = Array.from({ length: FLEET_PICTURE_LIMIT + 5 }, (_, index) =>
      device(`D-${index}`, `S-${index}`, index),
    );
    const result = picture({ devices });
    expect(result.sites).toHaveLength(FLEET_PICTURE_LIMIT);
    expect(result.counts.sites).toBe(FLEET_PICTURE_LIMIT + 5);
    expect(result.sites[0]?.siteId).toBe(`S-${FLEET_PICTURE_LIMIT + 4}`);
  });
});

describe('socBandOf', () => {
  it('puts each state of charge in its tenth, 100% in the last', () => {
    expect([0, 9.9, 10, 55, 99.9, 100].map(socBandOf)).toEqual([0, 0, 1, 5, 9, 9]);
  });
});

describe('runningEventsOf', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const window = { startTime: iso(NOW - 10 * MINUTE), endTime: iso(NOW + 10 * MINUTE) };
  const ratings = { maxChargePowerW: 5000, maxDischargePowerW: 5000 };

  it('counts running batches and single commands, clipping each device to its ratings', () => {
    const events = runningEventsOf(
      {
        batches: [
          {
            ledgerEntryId: 'entry-1',
            batchCommandId: 'batch_1',
            ...window,
            powerControl: { targetBatteryPowerW: 8000 },
            deviceIds: ['A-1', 'A-2'],
            found: 2,
            confirming: 0,
            notFound: 0,
            cancelled: false,
          },
          {
            ledgerEntryId: 'entry-2',
            ...window,
            powerControl: { targetBatteryPowerW: 1000 },
            deviceIds: ['A-3'],
            found: 1,
            confirming: 0,
            notFound: 0,
            cancelled: true,
          },
        ],
        commands: [
          { deviceId: 'A-1', commandId: 'cmd_b', batchCommandId: 'batch_1', ...window },
          {
            deviceId: 'A-4',
            commandId: 'cmd_1',
            ledgerEntryId: 'entry-3',
            ...window,
            powerControl: { targetBatteryPowerW: -2000 },
            status: 'executing',
          },
          { deviceId: 'A-5', commandId: 'cmd_2', ...window, status: 'cancelled' },
          {
            deviceId: 'A-6',
            commandId: 'cmd_3',
            startTime: iso(NOW + MINUTE),
            endTime: iso(NOW + 2 * MINUTE),
          },
        ],
      },
      NOW,
      (deviceId) => (deviceId === 'A-2' ? undefined : ratings),
    );
    expect(events.map((event) => [event.kind, event.id, event.commandedW])).toEqual([
      // A-1 clipped to 5 kW; A-2's ratings unknown: its 8 kW as commanded.
      ['batch', 'entry-1', 13_000],
      ['command', 'entry-3', -2000],
    ]);
  });
});
