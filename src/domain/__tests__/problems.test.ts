import { describe, expect, it } from 'vitest';
import { BFF_PROBLEM_CODES, isBffProblemCode } from '../problems.ts';

describe('the product problem codes', () => {
  it('give each code an error status and a meaning', () => {
    for (const [code, { status, meaning }] of Object.entries(BFF_PROBLEM_CODES)) {
      expect(status.length, code).toBeGreaterThan(0);
      for (const value of status)
        if (value !== '5xx') expect(value >= 400 && value <= 599, code).toBe(true);
      expect(meaning.length, code).toBeGreaterThan(10);
    }
  });

  it('hold a code for every vendor refusal of the decision record', () => {
    for (const code of [
      'capability_out_of_range',
      'control_not_supported',
      'window_overlap',
      'not_cancellable',
      'batch_not_cancellable',
      'site_bound_elsewhere',
      'unknown_or_unbound',
      'device_rate_limited',
      'upstream_refused_request',
      'not_signed_in',
      'outcome_unknown',
    ])
      expect(isBffProblemCode(code), code).toBe(true);
    expect(isBffProblemCode('toString')).toBe(false);
  });

  it('never name a vendor field in a meaning', () => {
    for (const { meaning } of Object.values(BFF_PROBLEM_CODES))
      expect(meaning).not.toMatch(/errorCode|cancellReason|Kw\b|\/api\/openapi/);
  });
});
