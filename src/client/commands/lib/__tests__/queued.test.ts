import { describe, expect, it } from 'vitest';
import type { QueuedAnswer } from '#domain/queued-change.ts';
import { queuedWords } from '../queued.ts';

const answer = (reason: QueuedAnswer['queued']['reason']): QueuedAnswer => ({
  queued: { changeId: 'chg_1', goesAt: '2026-11-21T13:03:20Z', reason, deviceIds: ['BAT-1'] },
});

describe('queuedWords', () => {
  it("says when the change goes on the site's clock with UTC at hand, and why it waits", () => {
    expect(queuedWords(answer('no_slot'), 'Europe/Berlin')).toBe(
      "Queued: it goes at 2026-11-21 14:03 (Europe/Berlin), UTC 2026-11-21 13:03, because the device's calls to the vendor for this minute are spent. Until then you can withdraw it under Queued changes.",
    );
  });

  it('names a busy device and changes queued before it', () => {
    expect(queuedWords(answer('device_busy'), 'UTC')).toContain(
      'UTC 2026-11-21 13:03, because the vendor said the device is busy.',
    );
    expect(queuedWords(answer('changes_waiting'), 'UTC')).toContain(
      'changes queued before it on the same devices go first',
    );
  });

  it('offers no withdraw once the first call of a change of two went', () => {
    const words = queuedWords(answer('no_slot'), 'UTC', false);
    expect(words).toMatch(/Its first call went, so it can no longer be withdrawn\.$/);
    expect(words).not.toContain('withdraw it');
  });
});
