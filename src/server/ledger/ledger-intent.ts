import type { BatchCancelResponse, BatchRequest } from '../../domain/batch.ts';
import type {
  CommandCancellation,
  DeviceCommand,
  SubmissionResponse,
} from '../../domain/command.ts';
import type { ConnectionChange } from '../../domain/connections.ts';
import type { Site } from '../../domain/device.ts';
import type { LedgerKind } from '../../domain/ledger.ts';
import type { TimeWindow } from '../../domain/time-window.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import type { StatusRecord } from '../../domain/command.ts';
import type { Session } from '../session/session-store.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import { requestFingerprint } from './idempotency.ts';

/**
 * Reads every page of a device's history over a range (the ledger's `history`; the one that
 * spends the device budget: `budgetedHistory`).
 */
export type HistoryReader = (
  caller: UpstreamCaller,
  deviceId: string,
  query: HistoryQuery,
) => Promise<StatusRecord[]>;

/** What every state-changing call hands the ledger besides its own fields. */
interface IntentBase {
  /** Who acts: the entry's region, client and operator, and the caller of `send`. */
  session: Session;
  /** The `Idempotency-Key` of the request, already checked; absent when none was sent. */
  idempotencyKey?: string | undefined;
  /**
   * The `Idempotency-Key` of the earlier change this one undoes (`Powerdeck-Undo-Of`, already
   * checked for its form); the ledger resolves it among the same operator's entries.
   */
  undoOf?: string | undefined;
  /** The request's ID, for log lines about this call. */
  requestId?: string | undefined;
  /**
   * How this call reads a device's history to settle an unknown outcome before it sends: a queued
   * change's step reads it with its own slots, in the change's place (decision 007, section 2);
   * default the ledger's reader.
   */
  history?: HistoryReader | undefined;
}

/**
 * Performs the change through the upstream adapter and says what came of it, in the product's
 * terms. The ledger calls it at most once per attempt, only after the intent is written.
 */
type Send<T> = () => Promise<CallResult<T>>;

/**
 * One state-changing call as the route hands it to the ledger: parsed once from the request
 * (path and body, with the domain schemas), typed per kind. The ledger derives from it what the
 * entry records (devices, effective window, request body) and the request fingerprint.
 */
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
        /** An administrator sets (a zone) or clears (null) a site's time zone. */
        kind: 'siteTimeZone';
        siteId: string;
        timeZone: string | null;
        send: Send<Site>;
      }
  );

/** What an entry is about, as the ledger writes it with the intent. */
export interface LedgerSubject {
  deviceId?: string;
  deviceIds?: string[];
  siteId?: string;
  /** Time zone of the entry's site, or of all its devices when they share one. */
  timeZone?: string;
  commandId?: string;
  batchCommandId?: string;
  window?: TimeWindow;
  /** The request: a submission's or batch's body, a site time zone, or a connection change. */
  request?: DeviceCommand | BatchRequest | { timeZone: string | null } | ConnectionChange;
}

/** The subject of `intent`, before its site is known. */
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

/** The devices `intent` acts on, when the request names them (a batch cancel does not). */
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

/**
 * A fingerprint of what `intent` asks for: its kind, the operation's path, its parsed body and
 * the change it undoes, so one `Idempotency-Key` reused for another request is recognised (422).
 * The paths are the ones earlier versions fingerprinted with (the old upstream's), kept so that
 * their entries still replay for the same request.
 */
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

/** Kinds whose entries hold a window on devices: an unsettled one blocks that window. */
export const SUBMISSION_KINDS = ['submit', 'batch'] as const satisfies readonly LedgerKind[];
