import type { StatusRecord } from '#domain/command.ts';

/**
 * A received command on `BAT-EU-001-A`, 13:00–14:00 UTC on 2026-11-21 (14:00–15:00 in Berlin),
 * "3 kW charge, stop charging at 90%": the record the timeline tests draw, label and overlap-check.
 */
export const RECEIVED_RECORD: StatusRecord = {
  id: 'cmd_1',
  deviceId: 'BAT-EU-001-A',
  powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
  startTime: '2026-11-21T13:00:00Z',
  endTime: '2026-11-21T14:00:00Z',
  status: 'received',
  receivedAt: '2026-11-21T09:00:00Z',
};

/**
 * A received 3 kW charge on `BAT-1`, 01:00–02:00 UTC on 2026-11-21, received at 23:50 the evening
 * before: the command the undo and status polling tests follow.
 */
export const RECEIVED_ON_BAT_1: StatusRecord = {
  id: 'cmd_1',
  deviceId: 'BAT-1',
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-11-21T01:00:00Z',
  endTime: '2026-11-21T02:00:00Z',
  status: 'received',
  receivedAt: '2026-11-20T23:50:00Z',
};

/**
 * A received 1 kW discharge: the record a test makes where only its ID, device, window and
 * received time matter; `fields` may change the rest (its status, power control, times).
 */
export const receivedRecord = (
  fields: Pick<StatusRecord, 'id' | 'deviceId' | 'startTime' | 'endTime' | 'receivedAt'> &
    Partial<StatusRecord>,
): StatusRecord => ({ powerControl: { targetBatteryPowerW: 1000 }, status: 'received', ...fields });
