import { describe, expect, it } from 'vitest';
import { DeviceCommandSchema } from '#domain/command.ts';
import { parseInput } from '../parse.ts';
import { ProblemError } from '../problem.ts';

const window = { startTime: '2030-01-01T10:00:00Z', endTime: '2030-01-01T11:00:00Z' };

/** The `detail` of the problem `parseInput` throws for `body`. */
function detailOf(body: unknown): string {
  try {
    parseInput(DeviceCommandSchema, body, 'body');
  } catch (error) {
    if (error instanceof ProblemError) return error.problem.detail ?? '';
    throw error;
  }
  throw new Error('parsed');
}

describe('parseInput', () => {
  it("words a power control's refusals in the product's names, with range and unit", () => {
    const detail = detailOf({
      ...window,
      powerControl: { chargeCutoffSocPercent: 101, siteImportLimitW: 70_000 },
    });
    expect(detail).toBe(
      'Invalid body. Charge cut-off SoC must be between 5% and 100%; Site import limit must be between 0 and 65535 W',
    );
    expect(detailOf({ ...window, powerControl: {} })).toBe(
      'Invalid body. Set at least one power control: target battery power, a SoC cut-off or a site limit',
    );
  });

  it('names the field of any other problem, never its value', () => {
    const detail = detailOf({ powerControl: { targetBatteryPowerW: 1000 }, startTime: 'soon' });
    expect(detail).toMatch(/^Invalid body\. startTime: /);
    expect(detail).toContain('endTime: ');
    expect(detail).not.toContain('soon');
  });
});
