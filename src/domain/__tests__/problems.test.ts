import { describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR_STATUS } from '../errors.ts';
import { BFF_PROBLEM_CODES, isBffProblemCode } from '../problems.ts';

describe('the BFF problem codes', () => {
  it('give each code an error status and a meaning', () => {
    for (const [code, { status, meaning }] of Object.entries(BFF_PROBLEM_CODES)) {
      expect(status.length, code).toBeGreaterThan(0);
      for (const value of status)
        if (value !== '5xx') expect(value >= 400 && value <= 599, code).toBe(true);
      expect(meaning.length, code).toBeGreaterThan(10);
    }
  });

  it('tells its own codes from upstream codes passed on', () => {
    expect(isBffProblemCode('outcome_unknown')).toBe(true);
    expect(isBffProblemCode('window_overlap')).toBe(false);
    expect(isBffProblemCode('toString')).toBe(false);
  });

  it('never reuse an upstream code for another meaning, but the shared generic ones', () => {
    const shared = Object.keys(UPSTREAM_ERROR_STATUS).filter(isBffProblemCode);
    expect(shared.sort()).toEqual(['invalid_request', 'not_found', 'upstream_error']);
  });
});
