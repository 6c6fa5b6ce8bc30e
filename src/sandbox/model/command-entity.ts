import type { CancellationReason, CommandStatus, StatusRecord } from '../../domain/command.ts';
import type { PowerControl } from '../../domain/power-control.ts';

/** A device command as the sandbox keeps it: times in epoch milliseconds on the sandbox clock. */
export interface CommandEntity {
  id: string;
  deviceId: string;
  batchCommandId?: string | undefined;
  powerControl: PowerControl;
  startMs: number;
  endMs: number;
  status: CommandStatus;
  receivedAtMs: number;
  startedAtMs?: number | undefined;
  completedAtMs?: number | undefined;
  cancelledAtMs?: number | undefined;
  cancelReason?: CancellationReason | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The status record of a command (spec 2.4; field names docs/architecture.md, Upstream contract:
 * Status record).
 */
export function toStatusRecord(command: CommandEntity): StatusRecord {
  const record: StatusRecord = {
    id: command.id,
    deviceId: command.deviceId,
    powerControl: command.powerControl,
    startTime: iso(command.startMs),
    endTime: iso(command.endMs),
    status: command.status,
    receivedAt: iso(command.receivedAtMs),
  };
  if (command.batchCommandId !== undefined) record.batchCommandId = command.batchCommandId;
  if (command.startedAtMs !== undefined) record.startedAt = iso(command.startedAtMs);
  if (command.completedAtMs !== undefined) record.completedAt = iso(command.completedAtMs);
  if (command.cancelledAtMs !== undefined) record.cancelledAt = iso(command.cancelledAtMs);
  if (command.cancelReason !== undefined) record.cancelReason = command.cancelReason;
  return record;
}
