import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { windowLengthWords } from '#client/lib/time.ts';

/** An effective window on `timeZone`'s clock, e.g. `Sat 21 Nov 14:00–15:00 Europe/Berlin`. */
export function windowInZone(startMs: number, endMs: number, timeZone: string): string {
  const start = new TZDate(startMs, timeZone);
  const end = new TZDate(endMs, timeZone);
  const sameDay = format(start, 'yyyy-MM-dd') === format(end, 'yyyy-MM-dd');
  const endText = sameDay ? format(end, 'HH:mm') : format(end, 'EEE d MMM HH:mm');
  return `${format(start, 'EEE d MMM HH:mm')}–${endText} ${timeZone}`;
}

/** One instant in the wall clock of `timeZone`, with seconds, e.g. `Sat 21 Nov 14:00:05`. */
export function instantInZone(ms: number, timeZone: string): string {
  return format(new TZDate(ms, timeZone), 'EEE d MMM yyyy HH:mm:ss');
}

/** The time of day of an instant on the wall clock of `timeZone`, 24-hour: `14:05`. */
export function clockTime(ms: number, timeZone: string): string {
  return format(new TZDate(ms, timeZone), 'HH:mm');
}

// A window's length is said as every other length of time (src/client/lib/time.ts).
export { windowLengthWords };

/** The live readout of a drag, e.g. `14:05–15:30 · 1 h 25 min`; runs per pointer move, so formats little. */
export function windowReadout(startMs: number, endMs: number, timeZone: string): string {
  const start = new TZDate(startMs, timeZone);
  const end = new TZDate(endMs, timeZone);
  const sameDay = format(start, 'yyyy-MM-dd') === format(end, 'yyyy-MM-dd');
  return `${format(start, 'HH:mm')}–${format(end, sameDay ? 'HH:mm' : 'EEE d MMM HH:mm')} · ${windowLengthWords(endMs - startMs)}`;
}

/** The readout screen readers hear when a drag ends: `Sat 21 Nov 14:05–15:30 Europe/Berlin, 1 h 25 min`. */
export function windowSpoken(startMs: number, endMs: number, timeZone: string): string {
  return `${windowInZone(startMs, endMs, timeZone)}, ${windowLengthWords(endMs - startMs)}`;
}
