import { describe, expect, it } from 'vitest';
import { MAX_BATCH_DEVICES } from '#domain/batch.ts';
import {
  addDevices,
  canSubmitBatch,
  describeRefusals,
  parseDeviceIdList,
  removeDevices,
} from '../batch-selection.ts';

const ids = (n: number, prefix = 'BAT-EU-100-') =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(2, '0')}`);
const known = new Set(ids(60));

describe('addDevices', () => {
  it('adds up to 50 devices and refuses the 51st and later as full', () => {
    const { selected, refused } = addDevices([], ids(60), known);
    expect(selected).toHaveLength(MAX_BATCH_DEVICES);
    expect(selected).toEqual(ids(50));
    expect(refused).toHaveLength(10);
    expect(refused[0]).toEqual({ deviceId: 'BAT-EU-100-51', reason: 'full' });
    expect(refused.every((r) => r.reason === 'full')).toBe(true);
  });

  it('refuses one more device once the batch is full, leaving the selection unchanged', () => {
    const full = ids(50);
    const change = addDevices(full, ['BAT-EU-100-51'], known);
    expect(change.selected).toEqual(full);
    expect(change.refused).toEqual([{ deviceId: 'BAT-EU-100-51', reason: 'full' }]);
  });

  it('never holds a device twice, also when the same ID comes twice in one addition', () => {
    const change = addDevices(
      ['BAT-EU-100-01'],
      ['BAT-EU-100-01', 'BAT-EU-100-02', 'BAT-EU-100-02'],
      known,
    );
    expect(change.selected).toEqual(['BAT-EU-100-01', 'BAT-EU-100-02']);
    expect(change.refused).toEqual([
      { deviceId: 'BAT-EU-100-01', reason: 'duplicate' },
      { deviceId: 'BAT-EU-100-02', reason: 'duplicate' },
    ]);
  });

  it('refuses devices outside the bound sites as unknown', () => {
    const change = addDevices([], ['BAT-XX-1', 'BAT-EU-100-03'], known);
    expect(change.selected).toEqual(['BAT-EU-100-03']);
    expect(change.refused).toEqual([{ deviceId: 'BAT-XX-1', reason: 'unknown' }]);
  });

  it('does not change the selection it was given', () => {
    const before = ['BAT-EU-100-01'];
    addDevices(before, ['BAT-EU-100-02'], known);
    expect(before).toEqual(['BAT-EU-100-01']);
  });
});

describe('removeDevices', () => {
  it('removes the given devices and keeps the order of the others', () => {
    expect(removeDevices(ids(4), ['BAT-EU-100-02', 'BAT-EU-100-09'])).toEqual([
      'BAT-EU-100-01',
      'BAT-EU-100-03',
      'BAT-EU-100-04',
    ]);
  });
});

describe('parseDeviceIdList', () => {
  it('reads IDs separated by commas, semicolons, spaces and line breaks, once each', () => {
    expect(parseDeviceIdList(' BAT-1,BAT-2;BAT-3\nBAT-4\tBAT-1 \r\n"BAT-5"')).toEqual({
      deviceIds: ['BAT-1', 'BAT-2', 'BAT-3', 'BAT-4', 'BAT-5'],
      invalid: [],
    });
  });

  it('returns pieces that are no device ID apart', () => {
    expect(parseDeviceIdList('BAT-1 ../etc BAT.2')).toEqual({
      deviceIds: ['BAT-1'],
      invalid: ['../etc', 'BAT.2'],
    });
  });

  it('reads nothing out of blank text', () => {
    expect(parseDeviceIdList('  \n ')).toEqual({ deviceIds: [], invalid: [] });
  });
});

describe('canSubmitBatch', () => {
  it('allows 1 to 50 devices only', () => {
    expect(canSubmitBatch(0)).toBe(false);
    expect(canSubmitBatch(1)).toBe(true);
    expect(canSubmitBatch(50)).toBe(true);
    expect(canSubmitBatch(51)).toBe(false);
  });
});

describe('describeRefusals', () => {
  it('names the refused devices and why, shortening long lists', () => {
    const lines = describeRefusals([
      ...ids(7, 'F-').map((deviceId) => ({ deviceId, reason: 'full' as const })),
      { deviceId: 'X-1', reason: 'unknown' },
      { deviceId: 'D-1', reason: 'duplicate' },
    ]);
    expect(lines).toEqual([
      'F-01, F-02, F-03, F-04, F-05 and 2 more not added: a batch holds at most 50 devices. Remove some first.',
      'X-1 not added: not a device of a bound site. Bind its site first, or check the ID.',
      'D-1 already in the batch.',
    ]);
  });
});
