import { endedBeforeUnbind, type BatchCancelResult } from '#domain/batch.ts';
import { isCancellable, type DeviceCommand, type StatusRecord } from '#domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import type { BatchDeviceState } from './ledger-batches.ts';

/** One device of a batch page with what the page knows of it: its state and its latest record. */
export interface BatchDeviceView {
  device: BatchDeviceState;
  record?: StatusRecord | undefined;
}

export interface DeviceCommandRef {
  deviceId: string;
  commandId: string;
}

/** What cancelling the chosen devices will do, before it is confirmed. */
export interface CancelPlan {
  toCancel: DeviceCommandRef[];
  untouched: { deviceId: string; why: string }[];
}

/**
 * Splits the chosen devices into commands to cancel and those left (completed or cancelled:
 * docs/upstream.md, Lifecycle; not found: nothing to cancel). An unread status is sent: the vendor answers.
 */
export function planCancel(
  devices: readonly BatchDeviceView[],
  chosen: ReadonlySet<string>,
): CancelPlan {
  const plan: CancelPlan = { toCancel: [], untouched: [] };
  for (const { device, record } of devices) {
    if (!chosen.has(device.deviceId)) continue;
    if (device.kind === 'confirming')
      plan.untouched.push({ deviceId: device.deviceId, why: 'its command is not confirmed yet' });
    else if (device.kind === 'notFound')
      plan.untouched.push({ deviceId: device.deviceId, why: 'it never got the command' });
    else if (device.kind === 'unbound')
      plan.untouched.push({
        deviceId: device.deviceId,
        why: 'its site is unbound: powerdeck no longer reaches it',
      });
    else if (record && !isCancellable(record.status))
      plan.untouched.push({
        deviceId: device.deviceId,
        why: `its command is already ${COMMAND_STATUS_WORDS[record.status].toLowerCase()}`,
      });
    else plan.toCancel.push({ deviceId: device.deviceId, commandId: device.commandId });
  }
  return plan;
}

/** True when the device failed the command and may get it again: vendor-cancelled (not by an operator), or not found. */
export function hasFailed({ device, record }: BatchDeviceView): boolean {
  if (device.kind === 'notFound') return true;
  return (
    device.kind === 'found' &&
    record?.status === 'cancelled' &&
    record.cancelReason !== undefined &&
    record.cancelReason !== 'manuallyCancel'
  );
}

export function planResend(
  devices: readonly BatchDeviceView[],
  chosen: ReadonlySet<string>,
): string[] {
  return devices
    .filter((view) => chosen.has(view.device.deviceId) && hasFailed(view))
    .map((view) => view.device.deviceId);
}

/** A resend's window (epoch ms): the batch's own if it starts over `leadMs` ahead, else the same length from `fallbackStartMs`. */
export function resendWindow(
  command: Pick<DeviceCommand, 'startTime' | 'endTime'>,
  nowMs: number,
  fallbackStartMs: number,
  leadMs = 60_000,
): { startMs: number; endMs: number } {
  const startMs = Date.parse(command.startTime);
  const endMs = Date.parse(command.endTime);
  if (startMs - nowMs > leadMs) return { startMs, endMs };
  return { startMs: fallbackStartMs, endMs: fallbackStartMs + (endMs - startMs) };
}

/** Each chosen device's outcome after a cancel of chosen devices, by device ID. */
export type RowOutcomes = ReadonlyMap<string, BatchCancelResult>;

/** The words of one device row, the same on the page and in its CSV. */
export interface BatchDeviceWords {
  device: string;
  command: string;
  status: string;
  reason: string;
  outcome: string;
}

/** What the page (and its CSV) says of one device: command, status and reason, search state, last cancel's outcome. */
export function batchDeviceWords(
  { device, record }: BatchDeviceView,
  outcome: BatchCancelResult | undefined,
  failureWords: (result: BatchCancelResult) => string,
  statusError?: string,
): BatchDeviceWords {
  const outcomeWords = !outcome
    ? ''
    : outcome.success
      ? 'Cancelled'
      : `Not cancelled: ${failureWords(outcome)}`;
  if (device.kind === 'confirming')
    return {
      device: device.deviceId,
      command: 'Not confirmed yet',
      status: "Looking for it in the device's history",
      reason: '',
      outcome: outcomeWords,
    };
  if (device.kind === 'notFound')
    return {
      device: device.deviceId,
      command: "Not found in the device's history",
      status: 'No command',
      reason:
        "The window has ended and the device's history holds no command of this batch: the device most likely never got it. Check its history before sending it again, so it does not get the command twice.",
      outcome: outcomeWords,
    };
  if (device.kind === 'unbound' && device.lastStatus && endedBeforeUnbind(device))
    // Its command ended before the unbind: that outcome stands (a final status never changes).
    return {
      device: device.deviceId,
      command: device.commandId ?? 'Not confirmed',
      status: COMMAND_STATUS_WORDS[device.lastStatus],
      reason: `${device.lastCancelReason ? `${CANCELLATION_REASON_WORDS[device.lastCancelReason]}. ` : ''}Its site was unbound since: powerdeck reads it no more.`,
      outcome: outcomeWords,
    };
  if (device.kind === 'unbound')
    return {
      device: device.deviceId,
      command: device.commandId ?? 'Not confirmed',
      status: 'Site unbound: no longer followed',
      reason: `Its site was unbound, so powerdeck reads it no more; its command may still run on the vendor until the site is bound again.${device.lastStatus ? ` Last read: ${COMMAND_STATUS_WORDS[device.lastStatus]}.` : ''}`,
      outcome: outcomeWords,
    };
  return {
    device: device.deviceId,
    command: device.commandId,
    status: record ? COMMAND_STATUS_WORDS[record.status] : 'Not read yet',
    reason:
      statusError && !record
        ? `Could not read its status: ${statusError}`
        : record?.cancelReason
          ? CANCELLATION_REASON_WORDS[record.cancelReason]
          : '',
    outcome: outcomeWords,
  };
}
