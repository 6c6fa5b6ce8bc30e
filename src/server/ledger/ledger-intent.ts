import type { Account } from '#domain/account.ts';
import type { BatchCancelResponse, BatchRequest, BatchSubmissionResponse } from '#domain/batch.ts';
import type { CommandCancellation, DeviceCommand, SubmissionResponse } from '#domain/command.ts';
import type { ConnectionChange } from '#domain/connections.ts';
import type { Site } from '#domain/device.ts';
import type { LedgerKind, LedgerOutcome } from '#domain/ledger.ts';
import { submittedRecord } from '#domain/read-model.ts';
import type { TimeWindow } from '#domain/time-window.ts';
import type { HistoryQuery } from '#domain/history.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { Session } from '../session/session-store.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import type { WebhookChange } from '../webhooks/webhook-audit.ts';
import { acceptedBatchOutcome, batchAnswerOf } from './batch-confirmation.ts';
import type { DeviceCommandsRecorder, RecordOptions } from './device-commands-recorder.ts';
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
  request?:
    DeviceCommand | BatchRequest | { timeZone: string | null } | ConnectionChange | WebhookChange;
}

type IntentKind = LedgerIntent['kind'];
type IntentOf<K extends IntentKind> = Extract<LedgerIntent, { kind: K }>;

/** What the ledger records and fingerprints of one kind of intent. */
interface IntentRules<I> {
  subject: (intent: I) => LedgerSubject;
  /** The devices whose site the entry records; a batch cancel names none. */
  devices: (intent: I) => string[];
  /** The paths are the old upstream's, kept so earlier entries still replay. */
  call: (intent: I) => [path: string, body: unknown];
  /** What an accepted call is stored as; none: its answer as the vendor gave it. */
  accept?: (intent: I, status: number, value: unknown) => Acceptance;
  /** What the read model learns of an accepted call (`DeviceCommandsRecorder`); none: nothing. */
  record?: (
    recorder: DeviceCommandsRecorder,
    intent: I,
    body: unknown,
    entry: Entry,
  ) => Promise<unknown>;
}

/** An accepted call as its ledger entry stores it. */
export interface Acceptance {
  outcome: LedgerOutcome;
  status: number;
  body: unknown;
  commandId?: string | undefined;
  batchCommandId?: string | undefined;
}

/** The entry an accepted call is recorded under, and as whom. */
interface Entry {
  entryId: number;
  account: Account;
  options: RecordOptions;
}

const path = encodeURIComponent;

/**
 * One row per kind of intent: its subject, its devices and the call its fingerprint is made of
 * (the fingerprints are stored with entries: a change here must keep them byte-identical).
 */
const INTENT_KINDS: { [K in IntentKind]: IntentRules<IntentOf<K>> } = {
  submit: {
    subject: (intent) => ({
      deviceId: intent.deviceId,
      window: windowOf(intent.command),
      request: intent.command,
    }),
    devices: (intent) => [intent.deviceId],
    call: (intent) => [`/device/${path(intent.deviceId)}/commands`, intent.command],
    accept: (intent, status, value) => {
      const accepted = value as { id: string };
      return {
        status,
        body: value,
        outcome: { status, commands: [{ deviceId: intent.deviceId, id: accepted.id }] },
        commandId: accepted.id,
      };
    },
    record: (recorder, intent, body, { account, options }) =>
      recorder.recordSubmitted(
        account,
        intent.deviceId,
        submittedRecord(intent.deviceId, intent.command, body as SubmissionResponse),
        options,
      ),
  },
  cancel: {
    subject: (intent) => ({ deviceId: intent.deviceId, commandId: intent.commandId }),
    devices: (intent) => [intent.deviceId],
    call: (intent) => [
      `/devices/${path(intent.deviceId)}/commands/${path(intent.commandId)}/cancel`,
      undefined,
    ],
    record: (recorder, _intent, body, { account, options }) =>
      recorder.recordCancelled(account, body as CommandCancellation, options),
  },
  batch: {
    subject: (intent) => ({
      deviceIds: intent.batch.devices,
      window: windowOf(intent.batch.command),
      request: intent.batch,
    }),
    devices: (intent) => intent.batch.devices,
    call: (intent) => ['/devices/commands/batch', intent.batch],
    accept: (intent, status, value) => {
      const accepted = value as { batchCommandId: string; timestamp: string };
      const outcome = acceptedBatchOutcome(status, intent.batch.devices);
      return {
        status,
        outcome,
        batchCommandId: accepted.batchCommandId,
        body: batchAnswerOf(
          { batchCommandId: accepted.batchCommandId, completedAt: null, createdAt: new Date() },
          outcome,
          accepted.timestamp,
        ),
      };
    },
    record: (recorder, intent, body, { entryId, account, options }) => {
      const answer = body as BatchSubmissionResponse;
      return recorder.recordBatchSent(
        account,
        {
          ledgerEntryId: entryId,
          batchCommandId: answer.batchCommandId,
          deviceIds: intent.batch.devices,
          command: intent.batch.command,
          answeredAt: answer.timestamp,
        },
        options,
      );
    },
  },
  batchCancel: {
    subject: (intent) => ({ batchCommandId: intent.batchCommandId }),
    devices: () => [],
    call: (intent) => [`/devices/commands/batch/${path(intent.batchCommandId)}/cancel`, undefined],
    accept: (_intent, status, value) => {
      const answer = value as { results: LedgerOutcome['results'] };
      return { status, body: value, outcome: { status, results: answer.results ?? [] } };
    },
    record: (recorder, _intent, body, { account, options }) =>
      recorder.recordBatchCancelled(account, body as BatchCancelResponse, options),
  },
  bind: {
    subject: (intent) => ({ siteId: intent.siteId }),
    devices: () => [],
    call: (intent) => ['/sites', { siteId: intent.siteId }],
    record: (recorder, _intent, body, { account }) => {
      const site = body as Site;
      return recorder.recordSiteBound(account, {
        siteId: site.siteId,
        deviceIds: site.devices.map((device) => device.deviceId),
      });
    },
  },
  unbind: {
    subject: (intent) => ({ siteId: intent.siteId }),
    devices: () => [],
    call: (intent) => ['/sites', { siteId: intent.siteId }],
    record: (recorder, intent, _body, { account, options }) =>
      recorder.recordSiteUnbound(account, intent.siteId, options),
  },
  siteTimeZone: {
    subject: (intent) => ({
      siteId: intent.siteId,
      ...(intent.timeZone ? { timeZone: intent.timeZone } : {}),
      request: { timeZone: intent.timeZone },
    }),
    devices: () => [],
    call: (intent) => [`/sites/${path(intent.siteId)}/time-zone`, { timeZone: intent.timeZone }],
  },
};

/** The row of the intent's kind, typed for the intent (TypeScript cannot correlate the two). */
function rulesOf(intent: LedgerIntent): IntentRules<LedgerIntent> {
  return INTENT_KINDS[intent.kind] as IntentRules<LedgerIntent>;
}

export function subjectOf(intent: LedgerIntent): LedgerSubject {
  return rulesOf(intent).subject(intent);
}

/** A batch cancel names none. */
export function devicesOf(intent: LedgerIntent): string[] {
  return rulesOf(intent).devices(intent);
}

/** What an accepted call's entry stores: the kind's own, else its answer as it came. */
export function acceptanceOf(intent: LedgerIntent, status: number, value: unknown): Acceptance {
  const accept = rulesOf(intent).accept;
  return accept ? accept(intent, status, value) : { status, body: value, outcome: { status } };
}

/** Tells the read model of an accepted call, when its kind says what (decision 007, section 5). */
export async function recordAccepted(
  recorder: DeviceCommandsRecorder,
  intent: LedgerIntent,
  body: unknown,
  entry: Entry,
): Promise<void> {
  await rulesOf(intent).record?.(recorder, intent, body, entry);
}

/** The paths are the old upstream's, kept so earlier entries still replay. */
export function fingerprintOf(intent: LedgerIntent): string {
  return requestFingerprint(intent.kind, ...rulesOf(intent).call(intent), intent.undoOf);
}

function windowOf(command: DeviceCommand): TimeWindow {
  return { startTime: command.startTime, endTime: command.endTime };
}

/** An unsettled one blocks its window. */
export const SUBMISSION_KINDS = ['submit', 'batch'] as const satisfies readonly LedgerKind[];
