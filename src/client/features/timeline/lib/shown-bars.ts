import type { Bar } from './bars.ts';

/** Each device's bars without its cancelled ones, once per bars array (data version). */
const kept = new WeakMap<readonly Bar[], readonly Bar[]>();

/**
 * The bars to show with "Show cancelled" off: every device's bars but the cancelled ones. A
 * device whose bars did not change keeps the same array, so its drawing state (status
 * transitions, labels, overlap index) is not rebuilt.
 */
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
