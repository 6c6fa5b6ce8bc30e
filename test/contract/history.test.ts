import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import { HOUR_MS, submit } from './support/steps.ts';
import { HistoryPageSchema } from '#sandbox/vendor/schemas.ts';

/**
 * History (docs/upstream.md, History, Paging): on the singular `/device/` path, paged, sorted by
 * start. The 30-day range and the filter are in limits.test.ts.
 */
const target = useContractTarget();

const iso = (epochMs: number) => new Date(epochMs).toISOString();

describe('command history (docs/upstream.md, History)', () => {
  it('answers { deviceId, total, page, size, commands } sorted by start', async () => {
    const deviceId = target.config.deviceId;
    const later = await submit(target, deviceId, target.window(2 * HOUR_MS, HOUR_MS));
    const earlier = await submit(target, deviceId, target.window(0, HOUR_MS));
    await target.nextMinute();
    const response = await target.upstream.queryHistory(deviceId, {
      startTime: iso(target.baseMs),
      endTime: iso(target.baseMs + 4 * HOUR_MS),
    });
    expect(response.status).toBe(200);
    const history = HistoryPageSchema.parse(response.body);
    expect(history).toMatchObject({ deviceId, page: 1, size: 20 });
    const ids = history.commands.map((command) => command.id);
    expect(ids.indexOf(earlier)).toBeLessThan(ids.indexOf(later));
    expect(ids.indexOf(earlier)).toBeGreaterThanOrEqual(0);
    expect(history.total).toBe(history.commands.length);
  });

  it('pages the history: size per page, total over all pages', async () => {
    const deviceId = target.config.deviceId;
    const ids = [];
    for (let i = 0; i < 3; i += 1) {
      await target.nextMinute();
      ids.push(await submit(target, deviceId, target.window(i * HOUR_MS, HOUR_MS)));
    }
    const range = { startTime: iso(target.baseMs), endTime: iso(target.baseMs + 3 * HOUR_MS) };
    const pages = [];
    for (const page of ['1', '2', '3']) {
      await target.nextMinute();
      pages.push(
        HistoryPageSchema.parse(
          (await target.upstream.queryHistory(deviceId, { ...range, page, size: '1' })).body,
        ),
      );
    }
    expect(pages.map((page) => [page.total, page.page, page.size, page.commands.length])).toEqual([
      [3, 1, 1, 1],
      [3, 2, 1, 1],
      [3, 3, 1, 1],
    ]);
    expect(pages.flatMap((page) => page.commands.map((command) => command.id))).toEqual(ids);
  });
});
