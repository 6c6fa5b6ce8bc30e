import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { overlapConflict, problemSupportDetail, problemWords } from '../problem-words.ts';

/** A product problem a vendor refusal became, with the vendor's body kept for support. */
const refusal = (status: number, code: string, details?: unknown, vendorMessage = 'refused') =>
  new ApiError({
    status,
    code,
    title: 'Refused',
    detail: `The server's words for ${code}`,
    details,
    upstream: { errorCode: 'X', message: vendorMessage, timestamp: '2026-11-21T10:00:00Z' },
  });

const INTERNALS = [/\bspec\b/i, /\bBFF\b/, /\d{4}-\d\d-\d\dT\d\d:\d\d/, /errorCode|\/api\//];

describe('problemWords', () => {
  it('words a value out of range with the control, the value and the range in units', () => {
    const words = problemWords(
      refusal(422, 'capability_out_of_range', {
        deviceId: 'BAT-1',
        property: 'targetBatteryPowerW',
        value: 9000,
        min: -5000,
        max: 5000,
      }),
    );
    expect(words).toBe(
      'Target battery power 9 kW is outside the range of BAT-1 (-5 kW to 5 kW). Choose a value inside it.',
    );
  });

  it('words when a rate-limited device takes its next call, on the site clock with UTC beside', () => {
    const words = problemWords(
      refusal(429, 'device_rate_limited', {
        deviceId: 'BAT-1',
        retryAt: '2026-11-21T10:00:30Z',
      }),
      'Europe/Berlin',
    );
    expect(words).toContain('BAT-1 has had all the calls');
    expect(words).toContain('11:00');
    expect(words).not.toMatch(/try again/i);
    for (const internal of INTERNALS) expect(words).not.toMatch(internal);
  });

  it.each([
    ['window_overlap', 409, /overlaps another command/],
    ['not_cancellable', 409, /already finished/],
    ['batch_not_cancellable', 409, /nothing left to cancel/],
    ['site_bound_elsewhere', 409, /another partner account/],
    ['unknown_or_unbound', 404, /not bound to this account/],
    ['control_not_supported', 422, /does not support/],
    ['upstream_refused_request', 502, /fault of powerdeck/],
    ['upstream_refused', 422, /reason powerdeck does not know/],
  ])('words %s in the product’s terms, never the vendor’s message', (code, status, words) => {
    const error = refusal(status, code, undefined, 'see spec 7, POST /device/X/commands');
    const text = problemWords(error, 'Europe/Berlin');
    expect(text).toMatch(words);
    for (const internal of INTERNALS) expect(text).not.toMatch(internal);
    expect(problemSupportDetail(error)).toContain('see spec 7');
  });

  it('words an overlap naming the command in the way, on the site clock with UTC beside', () => {
    const words = problemWords(
      refusal(409, 'window_overlap', {
        conflictingCommandId: 'cmd_9',
        startTime: '2026-11-21T10:00:00Z',
        endTime: '2026-11-21T11:00:00Z',
      }),
      'Europe/Berlin',
    );
    expect(words).toContain(
      'overlaps command cmd_9, 2026-11-21 11:00–12:00 (Europe/Berlin), UTC 2026-11-21 10:00–11:00',
    );
    expect(
      overlapConflict(
        refusal(409, 'window_overlap', {
          conflictingCommandId: 'cmd_9',
          startTime: '2026-11-21T10:00:00Z',
          endTime: '2026-11-21T11:00:00Z',
        }),
      )?.conflictingCommandId,
    ).toBe('cmd_9');
  });

  it('keeps the words of powerdeck’s own problems', () => {
    const own = new ApiError({
      status: 409,
      code: 'window_unsettled',
      title: 'Conflict',
      detail: 'An earlier submission for this device and window is still under way.',
    });
    expect(problemWords(own)).toBe(own.detail);
  });

  it('words a change the budget cannot send in time with the earliest start it allows, on the site clock', () => {
    const words = problemWords(
      refusal(409, 'budget_too_tight', {
        deviceIds: ['BAT-1'],
        lastCallAt: '2026-11-21T10:00:40Z',
        earliestStart: '2026-11-21T10:02:40Z',
      }),
      'Europe/Berlin',
    );
    expect(words).toBe(
      'Nothing was sent: BAT-1 has no call to the vendor left before 2026-11-21 11:00 (Europe/Berlin), UTC 2026-11-21 10:00 (two per device per minute), and a change must reach the vendor 2 minutes before its window starts. Choose a start at 2026-11-21 11:02 (Europe/Berlin), UTC 2026-11-21 10:02 or later, or try again in a minute.',
    );
    for (const internal of INTERNALS) expect(words).not.toMatch(internal);
  });

  it('names the budget the refusal gives, not the vendor default, when the region is configured otherwise', () => {
    const words = problemWords(
      refusal(409, 'budget_too_tight', {
        deviceIds: ['BAT-1', 'BAT-2'],
        lastCallAt: '2026-11-21T10:00:40Z',
        earliestStart: '2026-11-21T10:02:40Z',
        limit: 3,
        windowSeconds: 60,
      }),
      'UTC',
    );
    expect(words).toContain('BAT-1, BAT-2 have no call to the vendor left');
    expect(words).toContain('(three per device per minute)');
    expect(words).not.toContain('two per device');
  });

  it('words what another person changed on the device since it was opened, and what to do', () => {
    const words = problemWords(
      refusal(409, 'device_changed', {
        deviceId: 'BAT-1',
        sinceVersion: 3,
        version: 5,
        complete: true,
        changes: [
          {
            version: 4,
            kind: 'commandAdded',
            deviceId: 'BAT-1',
            commandId: 'cmd_7',
            startTime: '2026-11-21T12:00:00Z',
            endTime: '2026-11-21T13:00:00Z',
            at: '2026-11-21T10:00:00Z',
            madeBy: 'Kim',
          },
          {
            version: 5,
            kind: 'commandCancelled',
            deviceId: 'BAT-1',
            commandId: 'cmd_2',
            startTime: '2026-11-21T14:00:00Z',
            endTime: '2026-11-21T15:00:00Z',
            at: '2026-11-21T10:01:00Z',
            cancelReason: 'deviceFault',
          },
        ],
      }),
      'Europe/Berlin',
    );
    expect(words).toMatch(/^Nothing was sent: BAT-1 changed since you opened it\. /);
    expect(words).toContain('Command cmd_7 (2026-11-21 13:00–14:00 (Europe/Berlin)');
    expect(words).toContain('was added by Kim.');
    expect(words).toContain('was cancelled: a device fault prevented or stopped execution.');
    expect(words).toMatch(/make your change again if it still applies\.$/);
    for (const internal of INTERNALS) expect(words).not.toMatch(internal);
  });

  it('keeps the server’s words for a budget or device refusal whose details it cannot read', () => {
    expect(problemWords(refusal(409, 'budget_too_tight'))).toBe(
      "The server's words for budget_too_tight",
    );
    expect(problemWords(refusal(409, 'device_changed', { changes: [] }))).toBe(
      "The server's words for device_changed",
    );
  });

  it('names no conflicting command when the problem does not', () => {
    expect(overlapConflict(refusal(409, 'window_overlap'))).toBeUndefined();
  });
});
