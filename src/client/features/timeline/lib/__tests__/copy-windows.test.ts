import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { TWO_ZONE_SITES } from '#client/testing/test-devices.ts';
import { toBar } from '../bars.ts';
import {
  checkCopies,
  copyCommand,
  copyOf,
  duplicateCopies,
  pasteCopies,
  shiftDays,
} from '../copy-windows.ts';
import { DeviceOverlapIndex } from '../overlap-index.ts';
import type { RowTarget } from '../timeline-types.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const NOW = Date.parse('2026-11-21T10:00:00Z');
const [berlin, adelaide] = TWO_ZONE_SITES as [Site, Site];
function targetOf(site: Site, index: number): RowTarget {
  const device = site.devices[index];
  if (!device) throw new Error(`no device ${index} at ${site.siteId}`);
  return { site, device };
}
const batteryA = targetOf(berlin, 0);
const batteryB = targetOf(berlin, 1);
const batteryAU = targetOf(adelaide, 0);
// Battery A holds the received record, 13:00–14:00 UTC; the others nothing.
const indexes = new Map([
  ['BAT-EU-001-A', new DeviceOverlapIndex([toBar(RECEIVED_RECORD)])],
  ['BAT-EU-001-B', new DeviceOverlapIndex([])],
  ['BAT-AU-001-A', new DeviceOverlapIndex([])],
]);
const indexOf = (deviceId: string) => indexes.get(deviceId);
const zoneOf = (target: RowTarget) => target.site.timeZone;
const start = Date.parse(RECEIVED_RECORD.startTime);
// What every battery of the two sites accepts (the record's SoC cut-off they lack).
const control = { targetBatteryPowerW: -3000 };

describe('duplicateCopies', () => {
  it('makes one copy per device and day offset, leaving out the original', () => {
    const copies = duplicateCopies(RECEIVED_RECORD, batteryA, [batteryA, batteryB], [0, 1]);
    expect(copies.map((copy) => [copy.label, copy.startMs - start])).toEqual([
      ['Battery A, +1 day', DAY_MS],
      ['Battery B, same day', 0],
      ['Battery B, +1 day', DAY_MS],
    ]);
  });

  it('moves by days on the source site clock, across a change of daylight saving time', () => {
    // 28 March 2026, 14:00 in Berlin (UTC+1); the next day is on summer time (UTC+2).
    const before = Date.parse('2026-03-28T13:00:00Z');
    expect(shiftDays(before, 1, 'Europe/Berlin')).toBe(Date.parse('2026-03-29T12:00:00Z'));
    expect(shiftDays(before, 1, 'UTC')).toBe(before + DAY_MS);
  });
});

describe('checkCopies', () => {
  it('refuses an overlap with an active command, naming it, and passes the rest', () => {
    const copies = duplicateCopies(RECEIVED_RECORD, batteryA, [batteryA, batteryB], [0, 1]);
    const checked = checkCopies(copies, control, NOW, indexOf, zoneOf);
    expect(checked.map((copy) => copy.refusal)).toEqual([undefined, undefined, undefined]);
    const pasted = checkCopies(
      pasteCopies(copyOf(RECEIVED_RECORD, 'Battery A'), [batteryA, batteryB], start + HOUR_MS / 2),
      control,
      NOW,
      indexOf,
      zoneOf,
    );
    expect(pasted[0]?.refusal).toMatch(/^Refused: overlaps command cmd_1 \(received, /);
    expect(pasted[1]?.refusal).toBeUndefined();
  });

  it('refuses a copy a device cannot carry, one whose device is not read yet, and twin copies', () => {
    const exportLimit = { siteExportLimitW: 5000 };
    const windowCopy = { startMs: start + DAY_MS, endMs: start + 2 * DAY_MS };
    const checked = checkCopies(
      [
        { target: batteryB, ...windowCopy, label: 'Battery B' },
        { target: batteryAU, ...windowCopy, label: 'Battery AU' },
      ],
      exportLimit,
      NOW,
      indexOf,
      zoneOf,
    );
    expect(checked[0]?.refusal).toBe('This device does not support Site export limit.');

    const unread = checkCopies(
      [{ target: batteryB, ...windowCopy, label: 'Battery B' }],
      control,
      NOW,
      () => undefined,
      zoneOf,
    );
    expect(unread[0]?.refusal).toMatch(/commands of Battery B are not read yet/);

    // A 30-hour window copied to +1 and +2 days: the second copy overlaps the first.
    const long = { ...RECEIVED_RECORD, endTime: new Date(start + 30 * HOUR_MS).toISOString() };
    const twins = checkCopies(
      duplicateCopies(long, batteryA, [batteryB], [1, 2]),
      control,
      NOW,
      indexOf,
      zoneOf,
    );
    expect(twins.map((copy) => copy.refusal)).toEqual([
      undefined,
      'Refused: overlaps the copy for Battery B, +1 day.',
    ]);
  });

  it('refuses a paste that starts within the lead time', () => {
    const checked = checkCopies(
      pasteCopies(copyOf(RECEIVED_RECORD, 'Battery A'), [batteryB], NOW + 60_000),
      control,
      NOW,
      indexOf,
      zoneOf,
    );
    expect(checked[0]?.refusal).toMatch(/within 2 minutes of now/);
  });
});

describe('copyCommand', () => {
  it('sends the control over the copy window in whole UTC seconds', () => {
    expect(
      copyCommand(
        { target: batteryB, startMs: start + 0.4, endMs: start + HOUR_MS, label: 'x' },
        RECEIVED_RECORD.powerControl,
      ),
    ).toEqual({
      powerControl: RECEIVED_RECORD.powerControl,
      startTime: '2026-11-21T13:00:00Z',
      endTime: '2026-11-21T14:00:00Z',
    });
  });
});
