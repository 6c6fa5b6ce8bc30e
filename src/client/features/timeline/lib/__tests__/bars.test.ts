import { describe, expect, it } from 'vitest';
import { barAccessibleName, toBar } from '../bars.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';

const record = RECEIVED_RECORD;

describe('barAccessibleName', () => {
  it('follows the zone and the device name asked for, also when asked again for the same bar', () => {
    const bar = toBar(record);
    const berlin =
      'Hall A: 3 kW charge, stop charging at 90%, Sat 21 Nov 14:00–15:00 Europe/Berlin, Received (pending)';
    expect(barAccessibleName('Hall A', bar, 'Europe/Berlin')).toBe(berlin);
    expect(barAccessibleName('Hall A', bar, 'UTC')).toMatch(/13:00–14:00 UTC/);
    expect(barAccessibleName('Hall B', bar, 'UTC')).toMatch(/^Hall B: /);
    expect(barAccessibleName('Hall A', bar, 'Europe/Berlin')).toBe(berlin);
  });

  it('names the new status of a bar built from a newer record', () => {
    const received = toBar(record);
    const executing = toBar({ ...record, status: 'executing' });
    expect(barAccessibleName('Hall A', received, 'UTC')).toMatch(/Received \(pending\)$/);
    expect(barAccessibleName('Hall A', executing, 'UTC')).toMatch(/Executing$/);
  });
});
