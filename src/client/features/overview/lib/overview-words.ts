import type { OverviewCommand, OverviewTrouble } from '#domain/overview.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';

/** The device page of a line's device; absent when its site is not bound (any more). */
export function devicePath(line: { siteId?: string | undefined; deviceId: string }) {
  return line.siteId
    ? `/sites/${encodeURIComponent(line.siteId)}/devices/${encodeURIComponent(line.deviceId)}`
    : undefined;
}

/** The sites page with the site's heading focused. */
export const sitePath = (siteId: string) => `/sites?${new URLSearchParams({ site: siteId })}`;

/** A line's device in words: its name and ID, or the ID alone. */
export function deviceLabel(line: { deviceId: string; deviceName?: string | undefined }) {
  return line.deviceName && line.deviceName !== line.deviceId
    ? `${line.deviceName} (${line.deviceId})`
    : line.deviceId;
}

/** Where an active command stands: the vendor's last status, or what its window says when unread (docs/architecture.md, Overview). */
export function activeStatusWords(line: OverviewCommand, section: 'executing' | 'upcoming') {
  if (line.status === 'executing') return COMMAND_STATUS_WORDS.executing;
  if (section === 'upcoming') return 'Waiting for its start';
  return line.status === 'received'
    ? 'In its window; the device had not started it at the last read'
    : 'In its window (status not read since it was sent)';
}

/** Why an ended command (needing attention or cancelled by an operator) ended, in words. */
export function endedWords(line: OverviewCommand): { what: string; why: string } {
  if (line.refusal !== undefined) return { what: 'Refused', why: line.refusal };
  if (line.notFound)
    return {
      what: 'Not found',
      why: "The batch's window has ended and the device's history holds no command of it: the device most likely never got it",
    };
  return {
    what: 'Cancelled',
    why: line.cancelReason ? CANCELLATION_REASON_WORDS[line.cancelReason] : 'No reason given',
  };
}

/** What is wrong with a site or device: `Offline`, `Faulted`, `Offline and faulted`. */
export function troubleWords(line: Pick<OverviewTrouble, 'offline' | 'faulted'>) {
  if (line.offline && line.faulted) return 'Offline and faulted';
  return line.offline ? 'Offline' : 'Faulted';
}

/** `1 device`, `3 devices`. */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
