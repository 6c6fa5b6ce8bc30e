import { describe, expect, it } from 'vitest';
import { ID_PATTERN } from '#domain/ids.ts';
import { windowsOverlap } from '#domain/time-window.ts';
import { Catalog } from '../fixtures/catalog.ts';
import { generateLargeHistory, LARGE_FIXTURE } from '../fixtures/large-fixture.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { targetBatteryPowerRangeW } from '../model/device-capability.ts';
import {
  CANCELLATION_REASONS,
  COMMAND_STATUSES,
  isActiveStatus,
  OFFSET_TIME_ZONE_PATTERN,
  PowerControlSchema,
} from '../vendor/schemas.ts';

const NOW_MS = Date.parse('2030-03-15T10:20:00.000Z');
const history = generateLargeHistory(NOW_MS);

describe('fixture large', () => {
  it('adds 1,000 devices over 20 Europe sites to the demo fixture', () => {
    const added = LARGE_FIXTURE.sites.filter((site) => /^PLANT-EU-2\d\d$/.test(site.siteId));
    expect(added).toHaveLength(20);
    expect(added.flatMap((site) => site.devices)).toHaveLength(1000);
    expect(added.every((site) => site.region === 'eu')).toBe(true);
    const catalog = new Catalog(LARGE_FIXTURE);
    expect(catalog.device('BAT-EU-001-C')).toBeDefined();
    expect(catalog.device('BAT-EU-220-050', 'eu')).toBeDefined();
  });

  it('gives the added sites the vendor fields: five countries, offset zones, 5 or 10 kW devices', () => {
    const added = LARGE_FIXTURE.sites.filter((site) => /^PLANT-EU-2\d\d$/.test(site.siteId));
    expect(new Set(added.map((site) => site.countryCode))).toEqual(
      new Set(['DE', 'FR', 'ES', 'GB', 'FI']),
    );
    expect(added.every((site) => OFFSET_TIME_ZONE_PATTERN.test(site.timezone))).toBe(true);
    const ranges = new Set(
      added.flatMap((site) =>
        site.devices.map((device) => JSON.stringify(targetBatteryPowerRangeW(device))),
      ),
    );
    expect(ranges).toEqual(
      new Set([
        JSON.stringify({ min: -5000, max: 5000 }),
        JSON.stringify({ min: -10000, max: 10000 }),
      ]),
    );
  });

  it('generates at least 20,000 commands over 30 days with every status and reason', () => {
    expect(history.length).toBeGreaterThanOrEqual(20_000);
    const statuses = new Set(history.map((c) => c.status));
    expect([...statuses].sort()).toEqual([...COMMAND_STATUSES].sort());
    const reasons = new Set(history.map((c) => c.cancelReason).filter(Boolean));
    expect([...reasons].sort()).toEqual([...CANCELLATION_REASONS].sort());
    const earliest = Math.min(...history.map((c) => c.startMs));
    expect(NOW_MS - earliest).toBeGreaterThan(29 * 24 * 3_600_000);
  });

  it('is deterministic for a seeding day and uses valid, unique IDs', () => {
    const again = generateLargeHistory(NOW_MS);
    expect(again).toEqual(history);
    expect(new Set(history.map((c) => c.id)).size).toBe(history.length);
    expect(history.every((c) => ID_PATTERN.test(c.id))).toBe(true);
  });

  it('is consistent with the lifecycle at the seeding instant and valid for the vendor schema', () => {
    const problems: string[] = [];
    const devices = new Map(
      LARGE_FIXTURE.sites.flatMap((site) => site.devices).map((d) => [d.deviceId, d]),
    );
    const activeByDevice = new Map<string, CommandEntity[]>();
    for (const c of history) {
      const end = c.completedAtMs ?? c.cancelledAtMs;
      if (c.receivedAtMs > NOW_MS) problems.push(`${c.id} received in the future`);
      if (c.endMs <= NOW_MS && isActiveStatus(c.status))
        problems.push(`${c.id} active after its end`);
      if (c.status === 'received' && c.startMs <= NOW_MS - 60_000) problems.push(`${c.id} overdue`);
      if (c.startedAtMs !== undefined && c.startedAtMs < c.receivedAtMs)
        problems.push(`${c.id} started early`);
      if (end !== undefined && end < (c.startedAtMs ?? c.receivedAtMs))
        problems.push(`${c.id} ended early`);
      if (!PowerControlSchema.safeParse(c.powerControl).success)
        problems.push(`${c.id} has a power control the vendor schema refuses`);
      const watts = c.powerControl.targetBatteryPowerW;
      const device = devices.get(c.deviceId);
      const range = device && targetBatteryPowerRangeW(device);
      if (watts !== undefined && range && (watts < range.min || watts > range.max))
        problems.push(`${c.id} exceeds the device's range`);
      if (!isActiveStatus(c.status)) continue;
      const others = activeByDevice.get(c.deviceId) ?? [];
      if (
        others.some((o) =>
          windowsOverlap(
            { startMs: c.startMs, endMs: c.endMs },
            { startMs: o.startMs, endMs: o.endMs },
          ),
        )
      )
        problems.push(`${c.id} overlaps an active command`);
      activeByDevice.set(c.deviceId, [...others, c]);
    }
    expect(problems).toEqual([]);
  });
});
