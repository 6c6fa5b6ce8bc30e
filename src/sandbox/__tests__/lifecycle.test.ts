import { describe, expect, it } from 'vitest';
import type { CommandEntity } from '../model/command-entity.ts';
import { advanceCommand, START_GRACE_MS, type DeviceCondition } from '../model/lifecycle.ts';

const command: CommandEntity = {
  id: 'cmd_1',
  deviceId: 'DEV',
  powerControl: { targetBatteryPowerW: 100 },
  startMs: 10_000,
  endMs: 100_000,
  status: 'received',
  receivedAtMs: 0,
};
const healthy: DeviceCondition = { online: true, fault: false, sinceMs: 0 };
const DEVICE = { lacks: [] };

describe('advanceCommand', () => {
  it('changes nothing before startTime', () => {
    expect(advanceCommand(command, DEVICE, healthy, 9_999)).toBeUndefined();
  });

  it('starts at startTime and completes at endTime', () => {
    const started = advanceCommand(command, DEVICE, healthy, 10_000);
    expect(started).toMatchObject({ status: 'executing', startedAtMs: 10_000 });
    expect(started && advanceCommand(started, DEVICE, healthy, 99_999)).toBeUndefined();
    expect(started && advanceCommand(started, DEVICE, healthy, 100_000)).toMatchObject({
      status: 'completed',
      completedAtMs: 100_000,
    });
  });

  it('starts a command received after its startTime at reception', () => {
    const late = { ...command, receivedAtMs: 20_000 };
    expect(advanceCommand(late, DEVICE, healthy, 20_000)).toMatchObject({
      startedAtMs: 20_000,
    });
  });

  it('ends notSupported at start before looking at the device', () => {
    const lacking = { lacks: ['siteExportLimitW' as const] };
    const exporting = { ...command, powerControl: { siteExportLimitW: 1 } };
    expect(
      advanceCommand(exporting, lacking, { online: false, fault: true, sinceMs: 0 }, 50_000),
    ).toMatchObject({ status: 'cancelled', cancelReason: 'notSupported', cancelledAtMs: 10_000 });
  });

  it('expires an offline device at start + 60 s, or at endTime for a shorter window', () => {
    const offline = { online: false, fault: false, sinceMs: 0 };
    expect(advanceCommand(command, DEVICE, offline, 10_000 + START_GRACE_MS - 1)).toBeUndefined();
    expect(advanceCommand(command, DEVICE, offline, 10_000 + START_GRACE_MS)).toMatchObject({
      cancelReason: 'startTimeExpire',
      cancelledAtMs: 10_000 + START_GRACE_MS,
    });
    const short = { ...command, endMs: 40_000 };
    expect(advanceCommand(short, DEVICE, offline, 40_000)).toMatchObject({
      cancelReason: 'startTimeExpire',
      cancelledAtMs: 40_000,
    });
  });

  it('ends deviceFault at the later of start and the fault', () => {
    expect(
      advanceCommand(command, DEVICE, { online: true, fault: true, sinceMs: 5 }, 10_000),
    ).toMatchObject({ cancelReason: 'deviceFault', cancelledAtMs: 10_000 });
    const executing = { ...command, status: 'executing' as const, startedAtMs: 10_000 };
    expect(
      advanceCommand(executing, DEVICE, { online: true, fault: true, sinceMs: 30_000 }, 200_000),
    ).toMatchObject({ cancelReason: 'deviceFault', cancelledAtMs: 30_000 });
  });

  it('keeps an executing command when its device goes offline', () => {
    const executing = { ...command, status: 'executing' as const, startedAtMs: 10_000 };
    expect(
      advanceCommand(executing, DEVICE, { online: false, fault: false, sinceMs: 20_000 }, 50_000),
    ).toBeUndefined();
  });
});
