import type { BatchSubmissionResponse } from '#domain/batch.ts';
import type { StatusRecord } from '#domain/command.ts';
import { deviceOutcomeOfRecord, type FleetDeviceOutcome } from '#domain/fleet-job.ts';

export const COMMAND_NOT_FOUND =
  "The vendor accepted the batch, but this device's command history shows no command of it after its window ended: it may have refused the device. Check the device before sending to it again.";

/** Found commands with their status (else `received`), `notFound` devices failed, the rest waiting. */
export function devicesOfBatch(
  devices: readonly FleetDeviceOutcome[],
  answer: Pick<BatchSubmissionResponse, 'commands' | 'unconfirmed'>,
  found: ReadonlyMap<string, StatusRecord> | undefined,
  nowMs: number,
): FleetDeviceOutcome[] {
  const ids = new Map(answer.commands.map((c) => [c.deviceId, c.id]));
  const missing = new Set(
    answer.unconfirmed.filter((d) => d.state === 'notFound').map((d) => d.deviceId),
  );
  return devices.map((device) => {
    const commandId = ids.get(device.deviceId) ?? device.commandId;
    if (commandId) {
      const record = found?.get(device.deviceId);
      return {
        ...device,
        commandId,
        ...(record
          ? deviceOutcomeOfRecord(record, nowMs)
          : { status: device.status ?? 'received' }),
      };
    }
    if (missing.has(device.deviceId))
      return {
        deviceId: device.deviceId,
        failure: COMMAND_NOT_FOUND,
        outcomeAt: new Date(nowMs).toISOString(),
      };
    return { deviceId: device.deviceId };
  });
}
