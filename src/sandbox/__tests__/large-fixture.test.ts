import { describe, expect, it } from 'vitest';
import { CANCELLATION_REASONS, COMMAND_STATUSES, isActiveStatus } from '../../domain/command.ts';
import { windowsOverlap } from '../../domain/time-window.ts';
import { Catalog } from '../fixtures/catalog.ts';
import { generateLargeHistory, LARGE_FIXTURE } from '../fixtures/large-fixture.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { ID_PATTERN } from '../../domain/ids.ts';

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

  it('is consistent with the lifecycle at the seeding instant', () => {
    const problems: string[] = [];
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
