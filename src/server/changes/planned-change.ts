import type { DeviceCommand } from '#domain/command.ts';
import { CHANGE_LEAD_TIME_MS } from '#domain/lead-time.ts';
import {
  stepIdempotencyKey,
  type DeviceChangeRequest,
  type QueuedChange,
} from '#domain/queued-change.ts';

/**
 * The queued change of a planned device change, its steps' keys made from the request's, and the
 * deadline of the window it sends: a new window's start less the lead time; an undo of a
 * submission cancels before the command's start (undo never stops a started command).
 */
export function plannedChange(
  deviceId: string,
  body: DeviceChangeRequest,
  key: string,
): { change: QueuedChange; deadline: { windowStartMs: number; leadMs: number } } {
  const keyOf = (index: number, count: number) => stepIdempotencyKey(key, index, count);
  const lead = (startTime: string) => ({
    windowStartMs: Date.parse(startTime),
    leadMs: CHANGE_LEAD_TIME_MS,
  });
  // A replace, and the undo of one, cancel one command and submit another in its place.
  const cancelThenSubmit = (
    commandId: string,
    command: DeviceCommand,
  ): Extract<QueuedChange, { kind: 'replace' }>['steps'] => [
    { call: 'cancel' as const, deviceId, commandId, idempotencyKey: keyOf(0, 2) },
    { call: 'submit' as const, deviceId, command, idempotencyKey: keyOf(1, 2) },
  ];
  switch (body.kind) {
    case 'replace':
      return {
        change: { kind: 'replace', steps: cancelThenSubmit(body.commandId, body.command) },
        deadline: lead(body.command.startTime),
      };
    case 'undoSubmit':
      return {
        change: {
          kind: 'undo',
          undoOf: body.undoOf,
          steps: [
            { call: 'cancel', deviceId, commandId: body.commandId, idempotencyKey: keyOf(0, 1) },
          ],
        },
        deadline: { windowStartMs: Date.parse(body.startTime), leadMs: 0 },
      };
    case 'undoCancel':
      return {
        change: {
          kind: 'undo',
          undoOf: body.undoOf,
          steps: [{ call: 'submit', deviceId, command: body.command, idempotencyKey: keyOf(0, 1) }],
        },
        deadline: lead(body.command.startTime),
      };
    case 'undoReplace':
      return {
        change: {
          kind: 'undo',
          undoOf: body.undoOf,
          steps: cancelThenSubmit(body.commandId, body.command),
        },
        deadline: lead(body.command.startTime),
      };
  }
}
