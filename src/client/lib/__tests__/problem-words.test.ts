import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { problemSupportDetail, problemWords } from '../problem-words.ts';

const upstream = (status: number, code: string, message: string, details?: unknown) =>
  new ApiError({
    status,
    code,
    title: 'Refused',
    detail: message,
    upstream: { code, message, details },
  });

const INTERNALS = [/\bspec\b/i, /\bBFF\b/, /\d{4}-\d\d-\d\dT\d\d:\d\d/];

describe('problemWords', () => {
  it('words an overlap from its details, on the site clock with UTC beside, never the vendor message', () => {
    const error = upstream(
      409,
      'window_overlap',
      'window overlaps cmd_9 (2026-11-21T10:00:00Z to 2026-11-21T11:00:00Z) (spec 3.1 rule 2)',
      {
        conflictingCommandId: 'cmd_9',
        startTime: '2026-11-21T10:00:00Z',
        endTime: '2026-11-21T11:00:00Z',
      },
    );
    const words = problemWords(error, 'Europe/Berlin');
    expect(words).toContain(
      'overlaps command cmd_9, 2026-11-21 11:00–12:00 (Europe/Berlin), UTC 2026-11-21 10:00–11:00',
    );
    for (const internal of INTERNALS) expect(words).not.toMatch(internal);
    expect(problemSupportDetail(error)).toContain('(spec 3.1 rule 2)');
  });

  it('words a value out of range with the control, the value and the range in units', () => {
    const words = problemWords(
      upstream(422, 'capability_out_of_range', 'targetBatteryPowerW 9000 > 5000 (spec 2.2)', {
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

  it('never shows the message of a code it does not know, and keeps the words of powerdeck’s own problems', () => {
    const unknown = problemWords(
      upstream(400, 'vendor_special', 'see spec 8, the BFF is not calling it'),
    );
    for (const internal of INTERNALS) expect(unknown).not.toMatch(internal);
    const own = new ApiError({
      status: 409,
      code: 'window_unsettled',
      title: 'Conflict',
      detail: 'An earlier submission for this device and window is still under way.',
    });
    expect(problemWords(own)).toBe(own.detail);
  });
});
