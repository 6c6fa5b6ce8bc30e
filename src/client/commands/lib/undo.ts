import type { DeviceCommand, StatusRecord } from '#domain/command.ts';
import { COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { commandWords } from './command-words.ts';

/** An undoable change with its `Idempotency-Key`, named in `Powerdeck-Undo-Of` (docs/architecture.md, Ledger). */
export type UndoableChange =
  /** A submission: undone by cancelling the command while it is still `received`. */
  | { kind: 'submit'; deviceId: string; commandId: string; key: string }
  /** A cancel: undone by submitting the same command again (a new ID) while its window is ahead. */
  | { kind: 'cancel'; record: StatusRecord; key: string }
  /** A replace: undone by cancelling `next` while `received` and resending `old`'s window while ahead. */
  | {
      kind: 'replace';
      old: StatusRecord;
      next: { deviceId: string; commandId: string };
      key: string;
    }
  /** A batch submission: undone by cancelling the batch while every device command is `received`. */
  | {
      kind: 'batch';
      batchCommandId: string;
      commands: readonly { deviceId: string; commandId: string }[];
      key: string;
    };

/**
 * The undo offered once `command` was accepted for `device` as `commandId` under `key`: the
 * change, its title on `timeZone`'s clock ("... scheduled") and that zone, as `offerUndo` takes them.
 */
export function submittedUndo(
  device: { deviceId: string; name: string },
  command: DeviceCommand,
  commandId: string,
  key: string,
  timeZone: string,
): [change: UndoableChange, title: string, timeZone: string] {
  return [
    { kind: 'submit', deviceId: device.deviceId, commandId, key },
    `${commandWords(command, device.name, timeZone)} scheduled`,
    timeZone,
  ];
}

/** The command that sends `record` again: the same power control and effective window. */
export function sameCommand(record: StatusRecord): DeviceCommand {
  return {
    powerControl: record.powerControl,
    startTime: record.startTime,
    endTime: record.endTime,
  };
}

export type SingleChange = Exclude<UndoableChange, { kind: 'batch' }>;

/** The command an undo acts on first: the one it cancels, or for a cancel, the one it resends. */
export function undoTarget(change: SingleChange): { deviceId: string; commandId: string } {
  switch (change.kind) {
    case 'submit':
      return { deviceId: change.deviceId, commandId: change.commandId };
    case 'cancel':
      return { deviceId: change.record.deviceId, commandId: change.record.id };
    case 'replace':
      return change.next;
  }
}

/** The devices whose commands an undo of `change` changes (their commands are read again after). */
export function undoDevices(change: UndoableChange): string[] {
  return change.kind === 'batch'
    ? [...new Set(change.commands.map((c) => c.deviceId))]
    : [undoTarget(change).deviceId];
}

/**
 * Why `change` can no longer be undone, or null. An undo never stops a started command, and never
 * resends a window already started (docs/upstream.md, Commands).
 */
export function undoRefusal(
  change: SingleChange,
  current: StatusRecord | undefined,
  nowMs: number,
): string | null {
  const started = (record: StatusRecord) =>
    `command ${record.id} is ${COMMAND_STATUS_WORDS[record.status].toLowerCase()}, no longer waiting to start.`;
  if (change.kind !== 'cancel' && current && current.status !== 'received')
    return `Undo is no longer possible: ${started(current)}${
      current.status === 'executing' ? ' Cancel it if it must stop.' : ''
    }`;
  const resent =
    change.kind === 'submit' ? undefined : change.kind === 'cancel' ? change.record : change.old;
  if (resent && Date.parse(resent.startTime) <= nowMs)
    return `Undo is no longer possible: the window of command ${resent.id} has already begun, so it cannot be sent again.`;
  return null;
}

/** Why a batch can no longer be undone, or null: only while every device command is `received`. */
export function batchUndoRefusal(current: readonly StatusRecord[]): string | null {
  const started = current.filter((r) => r.status === 'executing' || r.status === 'completed');
  const cancelled = current.filter((r) => r.status === 'cancelled');
  if (started.length === 0 && cancelled.length === 0) return null;
  const total = current.length;
  const parts = [
    ...(started.length > 0
      ? [`${started.length} of ${total} commands ${started.length === 1 ? 'has' : 'have'} started`]
      : []),
    ...(cancelled.length > 0
      ? [
          `${cancelled.length} of ${total} ${cancelled.length === 1 ? 'is' : 'are'} cancelled already`,
        ]
      : []),
  ];
  return `Undo is no longer possible: ${parts.join(' and ')}. Cancel the batch to stop the commands still waiting or running.`;
}
