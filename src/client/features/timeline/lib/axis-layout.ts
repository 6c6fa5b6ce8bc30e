import {
  cachedAxisTicks,
  chooseTickStep,
  DAY_STEP,
  MONTH_STEP,
  WEEK_STEP,
  type TickStep,
} from './ticks.ts';
import { timeToX, type TimeScale } from './time-scale.ts';

const DAY_MS = 86_400_000;

/** The two rows of the time header: periods (day, month) above, their divisions below. */
export type AxisTier = 'upper' | 'lower';

export interface TierScale {
  step: TickStep;
  pattern: string;
}

/** One label of the time header; `xPx` from the left edge of the time area, `widthPx` its text. */
export interface AxisLabel {
  tier: AxisTier;
  text: string;
  xPx: number;
  widthPx: number;
}

/** Least room between two labels of a tier, and from a tick line to its label, in CSS pixels. */
export const LABEL_GAP_PX = 8;
export const LABEL_PAD_PX = 4;

/** Room an `HH:mm` label needs with its gap, and a `EEE d` label, in CSS pixels (12 px font). */
const CLOCK_LABEL_PX = 48;
const DAY_LABEL_PX = 56;
const DAY_NUMBER_PX = 22;

/** The two tiers for a zoom (`msPerPx`): hours under days, else days under months, else weeks. */
export function chooseAxisTiers(msPerPx: number): { lower: TierScale; upper: TierScale } {
  const month = { step: MONTH_STEP, pattern: 'MMMM yyyy' };
  const fine = chooseTickStep(msPerPx, CLOCK_LABEL_PX);
  if (fine.unit === 'minute' || fine.unit === 'hour')
    return {
      lower: { step: fine, pattern: 'HH:mm' },
      upper: { step: DAY_STEP, pattern: 'EEE d MMM' },
    };
  const dayPx = DAY_MS / msPerPx;
  if (dayPx >= DAY_LABEL_PX) return { lower: { step: DAY_STEP, pattern: 'EEE d' }, upper: month };
  if (dayPx >= DAY_NUMBER_PX) return { lower: { step: DAY_STEP, pattern: 'd' }, upper: month };
  return { lower: { step: WEEK_STEP, pattern: 'd MMM' }, upper: month };
}

/**
 * Lays out the two-tier time header of `scale` over `timeWidthPx` on `timeZone`'s clock, text
 * measured with `measure` (CSS px). A label that would overlap the previous one or be cut is
 * left out; an upper label sticks to the left edge within its period, as a sticky header does.
 */
export function layoutAxis(
  scale: TimeScale,
  timeWidthPx: number,
  timeZone: string,
  measure: (text: string) => number,
): AxisLabel[] {
  const { lower, upper } = chooseAxisTiers(scale.msPerPx);
  return [
    ...layoutLowerTier(scale, timeWidthPx, timeZone, lower, measure),
    ...layoutUpperTier(scale, timeWidthPx, timeZone, upper, measure),
  ];
}

/** The lower tier's labels alone, from `fromPx` on. See {@link layoutAxis}. */
export function layoutLowerTier(
  scale: TimeScale,
  timeWidthPx: number,
  timeZone: string,
  lower: TierScale,
  measure: (text: string) => number,
  fromPx = 0,
): AxisLabel[] {
  const endMs = scale.originMs + timeWidthPx * scale.msPerPx;
  const labels: AxisLabel[] = [];
  let previousEndPx = fromPx - LABEL_GAP_PX;
  for (const tick of cachedAxisTicks(scale.originMs, endMs, lower.step, timeZone, lower.pattern)) {
    const xPx = timeToX(scale, tick.ms) + LABEL_PAD_PX;
    if (xPx - LABEL_PAD_PX < 0) continue;
    if (xPx >= timeWidthPx) break;
    const widthPx = measure(tick.label);
    if (xPx < previousEndPx + LABEL_GAP_PX || xPx + widthPx > timeWidthPx) continue;
    labels.push({ tier: 'lower', text: tick.label, xPx, widthPx });
    previousEndPx = xPx + widthPx;
  }
  return labels;
}

/** The upper tier's labels alone. See {@link layoutAxis}. */
export function layoutUpperTier(
  scale: TimeScale,
  timeWidthPx: number,
  timeZone: string,
  upper: TierScale,
  measure: (text: string) => number,
): AxisLabel[] {
  const endMs = scale.originMs + timeWidthPx * scale.msPerPx;
  const ticks = cachedAxisTicks(scale.originMs, endMs, upper.step, timeZone, upper.pattern);
  const labels: AxisLabel[] = [];
  for (let i = 0; i < ticks.length; i++) {
    const tick = ticks[i];
    if (!tick) continue;
    const startPx = timeToX(scale, tick.ms);
    if (startPx >= timeWidthPx) break;
    const next = ticks[i + 1];
    const nextPx = next ? timeToX(scale, next.ms) : Number.POSITIVE_INFINITY;
    if (nextPx <= 0) continue;
    const widthPx = measure(tick.label);
    const firstPx = Math.max(startPx, 0) + LABEL_PAD_PX;
    const xPx = Math.min(firstPx, nextPx - LABEL_GAP_PX - widthPx);
    if (xPx < Math.max(startPx, 0) || xPx + widthPx > timeWidthPx) continue;
    labels.push({ tier: 'upper', text: tick.label, xPx, widthPx });
  }
  return labels;
}
