import type { BatchCancelResponse, BatchRequest } from '#domain/batch.ts';
import type { CommandCancellation, DeviceCommand, SubmissionResponse } from '#domain/command.ts';
import type { ConnectionChange } from '#domain/connections.ts';
import type { Site } from '#domain/device.ts';
import type { LedgerKind } from '#domain/ledger.ts';
import type { TimeWindow } from '#domain/time-window.ts';
import type { HistoryQuery } from '#domain/history.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { Session } from '../session/session-store.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import { requestFingerprint } from './idempotency.ts';

/** The one that spends the device budget: `budgetedHistory`. */
export type HistoryReader = (
  caller: UpstreamCaller,
  deviceId: string,
  query: HistoryQuery,
) => Promise<StatusRecord[]>;

interface IntentBase {
  session: Session;
  /** Already checked. */
  idempotencyKey?: string | undefined;
  /** `Powerdeck-Undo-Of`; the ledger resolves it among the same operator's entries. */
  undoOf?: string | undefined;
  requestId?: string | undefined;
  /** A queued change's step reads with its own slots (decision 007, section 2); default the ledger's. */
  history?: HistoryReader | undefined;
}

/** Called at most once per attempt, only after the intent is written. */
type Send<T> = () => Promise<CallResult<T>>;

export type LedgerIntent = IntentBase &
  (
    | {
        kind: 'submit';
        deviceId: string;
        command: DeviceCommand;
        send: Send<SubmissionResponse>;
      }
    | { kind: 'cancel'; deviceId: string; commandId: string; send: Send<CommandCancellation> }
    | {
        kind: 'batch';
        batch: BatchRequest;
        send: Send<{ batchCommandId: string; timestamp: string }>;
      }
    | { kind: 'batchCancel'; batchCommandId: string; send: Send<BatchCancelResponse> }
    | { kind: 'bind'; siteId: string; send: Send<Site> }
    | { kind: 'unbind'; siteId: string; send: Send<undefined> }
    | {
        /** Null clears it. */
        kind: 'siteTimeZone';
        siteId: string;
        timeZone: string | null;
        send: Send<Site>;
      }
  );

export interface LedgerSubject {
  deviceId?: string;
  deviceIds?: string[];
  siteId?: string;
  timeZone?: string;
  commandId?: string;
  batchCommandId?: string;
  window?: TimeWindow;
  request?: DeviceCommand | BatchRequest | { timeZone: string | null } | ConnectionChange;
}

export function subjectOf(intent: LedgerIntent): LedgerSubject {
  switch (intent.kind) {
    case 'submit':
      return {
        deviceId: intent.deviceId,
        window: windowOf(intent.command),
        request: intent.command,
      };
    case 'cancel':
      return { deviceId: intent.deviceId, commandId: intent.commandId };
    case 'batch':
      return {
        deviceIds: intent.batch.devices,
        window: windowOf(intent.batch.command),
        request: intent.batch,
      };
    case 'batchCancel':
      return { batchCommandId: intent.batchCommandId };
    case 'bind':
    case 'unbind':
      return { siteId: intent.siteId };
    case 'siteTimeZone':
      return {
        siteId: intent.siteId,
        ...(intent.timeZone ? { timeZone: intent.timeZone } : {}),
        request: { timeZone: intent.timeZone },
      };
  }
}

/** A batch cancel names none. */
export function devicesOf(intent: LedgerIntent): string[] {
  switch (intent.kind) {
    case 'submit':
    case 'cancel':
      return [intent.deviceId];
    case 'batch':
      return intent.batch.devices;
    default:
      return [];
  }
}

/** The paths are the old upstream's, kept so earlier entries still replay. */
export function fingerprintOf(intent: LedgerIntent): string {
  return requestFingerprint(intent.kind, ...callOf(intent), intent.undoOf);
}

const path = encodeURIComponent;

function callOf(intent: LedgerIntent): [path: string, body: unknown] {
  switch (intent.kind) {
    case 'submit':
      return [`/device/${path(intent.deviceId)}/commands`, intent.command];
    case 'cancel':
      return [
        `/devices/${path(intent.deviceId)}/commands/${path(intent.commandId)}/cancel`,
        undefined,
      ];
    case 'batch':
      return ['/devices/commands/batch', intent.batch];
    case 'batchCancel':
      return [`/devices/commands/batch/${path(intent.batchCommandId)}/cancel`, undefined];
    case 'bind':
    case 'unbind':
      return ['/sites', { siteId: intent.siteId }];
    case 'siteTimeZone':
      return [`/sites/${path(intent.siteId)}/time-zone`, { timeZone: intent.timeZone }];
  }
}

function windowOf(command: DeviceCommand): TimeWindow {
  return { startTime: command.startTime, endTime: command.endTime };
}

/** An unsettled one blocks its window. */
export const SUBMISSION_KINDS = ['submit', 'batch'] as const satisfies readonly LedgerKind[];
