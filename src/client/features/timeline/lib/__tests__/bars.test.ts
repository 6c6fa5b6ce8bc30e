import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../../../../domain/command.ts';
import { barAccessibleName, toBar } from '../bars.ts';

const record: StatusRecord = {
  id: 'cmd_1',
  deviceId: 'BAT-EU-001-A',
  powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
  startTime: '2026-11-21T13:00:00Z',
  endTime: '2026-11-21T14:00:00Z',
  status: 'received',
  receivedAt: '2026-11-21T09:00:00Z',
};

describe('barAccessibleName', () => {
  it('follows the zone and the device name asked for, also when asked again for the same bar', () => {
    const bar = toBar(record);
    const berlin =
      'Hall A: -3 kW, stop at 90%, Sat 21 Nov 14:00–15:00 Europe/Berlin, Received (pending)';
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
