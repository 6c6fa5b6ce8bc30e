import type { BatchRequest } from '../../domain/batch.ts';
import type { DeviceCommand } from '../../domain/command.ts';
import type { ConnectionChange } from '../../domain/connections.ts';
import type { LedgerKind } from '../../domain/ledger.ts';
import type { TimeWindow } from '../../domain/time-window.ts';
import type { Session } from '../session/session-store.ts';
import { UPSTREAM_PATHS } from '../upstream/upstream-api.ts';
import type { UpstreamResponse } from '../upstream/upstream-http.ts';
import { requestFingerprint } from './idempotency.ts';

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
   * Performs the upstream call, unread. The ledger calls it at most once per attempt, only after
   * the intent is written, and reads the answer itself.
   */
  send(): Promise<UpstreamResponse>;
}

/**
 * One state-changing call as the route hands it to the ledger: parsed once from the request
 * (path and body, with the domain schemas), typed per kind. The ledger derives from it what the
 * entry records (devices, effective window, request body) and the request fingerprint.
 */
export type LedgerIntent = IntentBase &
  (
    | { kind: 'submit'; deviceId: string; command: DeviceCommand }
    | { kind: 'cancel'; deviceId: string; commandId: string }
    | { kind: 'batch'; batch: BatchRequest }
    | { kind: 'batchCancel'; batchCommandId: string }
    | { kind: 'bind' | 'unbind'; siteId: string }
  );

/** What an entry is about, as the ledger writes it with the intent. */
export interface LedgerSubject {
  deviceId?: string;
  deviceIds?: string[];
  siteId?: string;
  /** IANA time zone of the entry's site, or of all its devices when they share one. */
  timeZone?: string;
  commandId?: string;
  batchCommandId?: string;
  window?: TimeWindow;
  /** The body sent upstream (submissions and batches), or what a connection change was. */
  request?: DeviceCommand | BatchRequest | ConnectionChange;
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
 * A fingerprint of what `intent` asks for: its kind, its upstream path, its parsed body and the
 * change it undoes, so one `Idempotency-Key` reused for another request is recognised (422).
 */
export function fingerprintOf(intent: LedgerIntent): string {
  return requestFingerprint(intent.kind, ...callOf(intent), intent.undoOf);
}

function callOf(intent: LedgerIntent): [path: string, body: unknown] {
  switch (intent.kind) {
    case 'submit':
      return [UPSTREAM_PATHS.submit(intent.deviceId), intent.command];
    case 'cancel':
      return [UPSTREAM_PATHS.cancel(intent), undefined];
    case 'batch':
      return [UPSTREAM_PATHS.batch, intent.batch];
    case 'batchCancel':
      return [UPSTREAM_PATHS.batchCancel(intent.batchCommandId), undefined];
    case 'bind':
    case 'unbind':
      return [UPSTREAM_PATHS.sites, { siteId: intent.siteId }];
  }
}

function windowOf(command: DeviceCommand): TimeWindow {
  return { startTime: command.startTime, endTime: command.endTime };
}

/** Kinds whose entries hold a window on devices: an unsettled one blocks that window. */
export const SUBMISSION_KINDS = ['submit', 'batch'] as const satisfies readonly LedgerKind[];
