import type { EventDeviceVerdict, EventVerdictsAnswer } from '#domain/verdict-answer.ts';
import { VERDICT_WORDS } from '#domain/verdict.ts';
import { powerScaleOf, type PowerScale } from './power-scale.ts';
import { energyWords } from './verdict-words.ts';

const devicesWord = (count: number) => (count === 1 ? '1 device' : `${count} devices`);

/** Energies read in MWh from 1 MWh, else kWh: an event's figure never reads in Wh. */
function energyScaleOf(valuesWh: readonly number[]): PowerScale {
  const scale = powerScaleOf(valuesWh);
  return scale.unit === 'W' ? { unit: 'kW', divisor: 1000 } : scale;
}

/** The figure's size in the scale's unit: two decimals below 10, one from 10 (`0.85`, `75.1`). */
function amount(wh: number, scale: PowerScale): string {
  const value = Math.abs(wh) / scale.divisor;
  return String(Number(value.toFixed(value < 10 ? 2 : 1)));
}

/**
 * An event's delivery as its big figure (docs/verification.md, Fleet figures), over its devices
 * with a verdict: `Delivered 3.2 of 4 MWh (80%)`, in kWh below 1 MWh; the direction commanded and
 * how many devices it counts in `detail`. Energies are signed like battery power (positive
 * discharges); a delivery the other way reads as none, with what moved instead.
 */
export function deliveryFigure(
  answer: Pick<
    EventVerdictsAnswer,
    'commandedEnergyWh' | 'deliveredEnergyWh' | 'deliveredPercent' | 'devices' | 'pending'
  >,
): { figure: string; detail: string } {
  const { commandedEnergyWh: commanded, deliveredEnergyWh: delivered } = answer;
  const scale = energyScaleOf([commanded, delivered]);
  const unit = `${scale.unit}h`;
  const judged = answer.devices - answer.pending;
  const over = `Over the ${devicesWord(judged)} with a verdict`;
  if (commanded === 0)
    return {
      figure: `${amount(delivered, scale)} ${unit} moved`,
      detail: `${over}; no target power was commanded (limits only).`,
    };
  const direction = commanded < 0 ? 'charge' : 'discharge';
  const detail = `${over}, commanded to ${direction}.`;
  if (delivered !== 0 && Math.sign(delivered) !== Math.sign(commanded))
    return {
      figure: `Delivered none of ${amount(commanded, scale)} ${unit}`,
      detail: `${detail} The batteries ${delivered < 0 ? 'charged' : 'discharged'} ${amount(delivered, scale)} ${unit} instead.`,
    };
  const share = answer.deliveredPercent === undefined ? '' : ` (${answer.deliveredPercent}%)`;
  return {
    figure: `Delivered ${amount(delivered, scale)} of ${amount(commanded, scale)} ${unit}${share}`,
    detail,
  };
}

/** `2 devices waiting for their verdict`, or nothing when every device has one. */
export function pendingWords(pending: number): string | undefined {
  if (pending <= 0) return undefined;
  return pending === 1
    ? '1 device waiting for its verdict'
    : `${pending} devices waiting for their verdict`;
}

/** What a device without a verdict in the answer reads as, in the table and the CSV. */
export const NO_VERDICT_YET = 'No verdict yet';

/** The CSV's verdict columns (energies signed like battery power, positive discharges). */
export const VERDICT_CSV_FIELDS = [
  'Verdict',
  'Delivered (kWh, discharge positive)',
  'Commanded (kWh, discharge positive)',
  'Share measured',
] as const;

const kwhCell = (wh: number | null) => (wh === null ? '' : String(Number((wh / 1000).toFixed(3))));

/** `98% measured`: the share of the window's samples read. */
export const coverageShareWords = (coverage: number) => `${Math.round(coverage * 100)}% measured`;

/**
 * The line under a device's verdict badge: its energy (`energyWords`) and the share measured;
 * the energy alone when nothing was measured (it says so), and nothing for a command judged over
 * no time (cancelled before its window began: no energy commanded, none measured).
 */
export function verdictLineWords(
  verdict: Pick<EventDeviceVerdict, 'commandedEnergyWh' | 'deliveredEnergyWh' | 'coverage'>,
): string | undefined {
  if (verdict.deliveredEnergyWh === null)
    return verdict.commandedEnergyWh === null || verdict.commandedEnergyWh === 0
      ? undefined
      : energyWords(verdict);
  return `${energyWords(verdict)}; ${coverageShareWords(verdict.coverage)}`;
}

/**
 * One device's verdict as the CSV's cells ({@link VERDICT_CSV_FIELDS}): the verdict's label, the
 * delivered and commanded kWh (blank when not measured or not commanded), the share measured;
 * `No verdict yet` and blanks without one.
 */
export function verdictCsvCells(verdict: EventDeviceVerdict | undefined): string[] {
  if (!verdict) return [NO_VERDICT_YET, '', '', ''];
  return [
    VERDICT_WORDS[verdict.verdict].label,
    kwhCell(verdict.deliveredEnergyWh),
    kwhCell(verdict.commandedEnergyWh),
    `${Math.round(verdict.coverage * 100)}%`,
  ];
}

/**
 * Finds a device's verdict in an event's answer: by device and command where the page knows the
 * command (a dispatch plan holds one device in several), else the device's only (or first) one;
 * a command without a verdict has none, even when its device has one for another command.
 */
export function verdictFinder(
  verdicts: readonly EventDeviceVerdict[],
): (deviceId: string, commandId?: string) => EventDeviceVerdict | undefined {
  const byCommand = new Map(verdicts.map((v) => [`${v.deviceId}\n${v.commandId}`, v]));
  const byDevice = new Map<string, EventDeviceVerdict>();
  for (const v of verdicts) if (!byDevice.has(v.deviceId)) byDevice.set(v.deviceId, v);
  return (deviceId, commandId) =>
    commandId === undefined ? byDevice.get(deviceId) : byCommand.get(`${deviceId}\n${commandId}`);
}
