import { MAX_BATCH_DEVICES } from '#domain/batch.ts';
import { ID_PATTERN } from '#domain/ids.ts';

/** Why a device was not added to the batch. */
export type RefusalReason = 'full' | 'duplicate' | 'unknown';

export interface SelectionRefusal {
  deviceId: string;
  reason: RefusalReason;
}

export interface SelectionChange {
  selected: readonly string[];
  refused: SelectionRefusal[];
}

/**
 * Adds `deviceIds` by the batch rules (docs/upstream.md, Batches): at most {@link MAX_BATCH_DEVICES},
 * each once, only `known` ones (the upstream refuses a whole batch for an unknown ID). Never mutates.
 */
export function addDevices(
  selected: readonly string[],
  deviceIds: Iterable<string>,
  known: ReadonlySet<string>,
): SelectionChange {
  const next = [...selected];
  const present = new Set(selected);
  const refused: SelectionRefusal[] = [];
  for (const deviceId of deviceIds) {
    if (!known.has(deviceId)) refused.push({ deviceId, reason: 'unknown' });
    else if (present.has(deviceId)) refused.push({ deviceId, reason: 'duplicate' });
    else if (next.length >= MAX_BATCH_DEVICES) refused.push({ deviceId, reason: 'full' });
    else {
      next.push(deviceId);
      present.add(deviceId);
    }
  }
  return { selected: next, refused };
}

export function removeDevices(
  selected: readonly string[],
  deviceIds: Iterable<string>,
): readonly string[] {
  const gone = new Set(deviceIds);
  return selected.filter((deviceId) => !gone.has(deviceId));
}

/** Device IDs from pasted text (commas, semicolons, white space: a spreadsheet column works), unique; non-IDs returned apart. */
export function parseDeviceIdList(text: string): { deviceIds: string[]; invalid: string[] } {
  const deviceIds: string[] = [];
  const invalid: string[] = [];
  const seen = new Set<string>();
  for (const piece of text.split(/[\s,;]+/)) {
    const value = piece.trim().replace(/^["']|["']$/g, '');
    if (!value || seen.has(value)) continue;
    seen.add(value);
    (ID_PATTERN.test(value) ? deviceIds : invalid).push(value);
  }
  return { deviceIds, invalid };
}

/** True when a batch of `count` devices may be submitted: 1 to {@link MAX_BATCH_DEVICES}. */
export function canSubmitBatch(count: number): boolean {
  return count >= 1 && count <= MAX_BATCH_DEVICES;
}

/** Words for refused additions, grouped by reason: what was refused and why. */
export function describeRefusals(refused: readonly SelectionRefusal[]): string[] {
  const byReason = (reason: RefusalReason) =>
    refused.filter((r) => r.reason === reason).map((r) => r.deviceId);
  const list = (ids: string[]) =>
    ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`;
  const lines: string[] = [];
  const full = byReason('full');
  if (full.length > 0)
    lines.push(
      `${list(full)} not added: a batch holds at most ${MAX_BATCH_DEVICES} devices. Remove some first.`,
    );
  const unknown = byReason('unknown');
  if (unknown.length > 0)
    lines.push(
      `${list(unknown)} not added: not a device of a bound site. Bind its site first, or check the ID.`,
    );
  const duplicate = byReason('duplicate');
  if (duplicate.length > 0) lines.push(`${list(duplicate)} already in the batch.`);
  return lines;
}
