import type { QueuedAnswer, QueuedReason } from '../../../domain/queued-change.ts';
import { formatInZoneWithUtc } from '../../lib/time.ts';

const WHY: Record<QueuedReason, string> = {
  no_slot: "the device's calls to the vendor for this minute are spent",
  device_busy: 'the vendor said the device is busy',
  changes_waiting: 'changes queued before it on the same devices go first',
};

/**
 * A change the BFF queued for its devices' budget of upstream calls, in words: `Queued: it goes at
 * 2026-11-21 14:03 (Europe/Berlin), UTC 2026-11-21 13:03, because the device's calls to the vendor
 * for this minute are spent.` (docs/decisions/007-device-call-budget.md, section 2). It goes by
 * itself; until then the list of queued changes shows it and can withdraw it.
 *
 * @param timeZone the zone of the site the change is for (IANA or a fixed offset); `UTC` when the
 *   devices are in several.
 */
export function queuedWords({ queued }: QueuedAnswer, timeZone: string): string {
  return `Queued: it goes at ${formatInZoneWithUtc(queued.goesAt, timeZone)}, because ${WHY[queued.reason]}. Until then you can withdraw it from the queued changes.`;
}
