import type { Bar } from './bars.ts';

/** Each device's bars without its cancelled ones, once per bars array (data version). */
const kept = new WeakMap<readonly Bar[], readonly Bar[]>();

/** Bars without cancelled ones; an unchanged device keeps its array, so its drawing state is reused. */
export function withoutCancelled(
  barsByDevice: ReadonlyMap<string, readonly Bar[]>,
): Map<string, readonly Bar[]> {
  const shown = new Map<string, readonly Bar[]>();
  for (const [deviceId, bars] of barsByDevice) {
    let live = kept.get(bars);
    if (!live) {
      live = bars.some((bar) => bar.status === 'cancelled')
        ? bars.filter((bar) => bar.status !== 'cancelled')
        : bars;
      kept.set(bars, live);
    }
    shown.set(deviceId, live);
  }
  return shown;
}
