import { describe, expect, it } from 'vitest';
import { commandWords } from '../command-words.ts';

describe('commandWords', () => {
  it("names the control, the device and the window on the site's clock, no command ID", () => {
    expect(
      commandWords(
        {
          powerControl: { targetBatteryPowerW: 3000 },
          startTime: '2026-11-21T13:00:00Z',
          endTime: '2026-11-21T15:00:00Z',
        },
        'Hall A battery',
        'Europe/Berlin',
      ),
    ).toBe('3 kW discharge on Hall A battery, 2026-11-21 14:00–16:00 (Europe/Berlin)');
  });
});
