import type { Dialect } from '../vendor/dialect.ts';
import type {
  CancellationReason,
  CommandStatus,
  PowerControl,
  StatusRecord,
} from '../vendor/schemas.ts';

/**
 * A device command as the sandbox keeps it: times in epoch milliseconds on the sandbox clock.
 * `batchCommandId` is the sandbox's own bookkeeping (batch cancel); the vendor's status record
 * carries no batch ID (docs/upstream.md, Status record).
 */
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
 * The status record of a command (docs/upstream.md, Status record): the timestamps the lifecycle
 * has reached, and the cancellation reason under the name(s) `reasonField` says
 * (docs/upstream.md, Dialects).
 */
export function toStatusRecord(
  command: CommandEntity,
  reasonField: Dialect['reasonField'] = 'cancellReason',
): StatusRecord {
  const record: StatusRecord = {
    id: command.id,
    deviceId: command.deviceId,
    powerControl: command.powerControl,
    startTime: iso(command.startMs),
    endTime: iso(command.endMs),
    status: command.status,
    receivedAt: iso(command.receivedAtMs),
  };
  if (command.startedAtMs !== undefined) record.startedAt = iso(command.startedAtMs);
  if (command.completedAtMs !== undefined) record.completedAt = iso(command.completedAtMs);
  if (command.cancelledAtMs !== undefined) record.cancelledAt = iso(command.cancelledAtMs);
  if (command.cancelReason !== undefined) {
    if (reasonField !== 'cancelReason') record.cancellReason = command.cancelReason;
    if (reasonField !== 'cancellReason') record.cancelReason = command.cancelReason;
  }
  return record;
}
