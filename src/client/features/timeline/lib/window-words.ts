import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';

/**
 * An effective window in the wall clock of `timeZone` (IANA name or `UTC`), e.g.
 * `Sat 21 Nov 14:00–15:00 Europe/Berlin`; a window ending on another local day names both days.
 */
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
