import { BatchRequestSchema } from '#domain/batch.ts';
import { DeviceCommandSchema, type StatusRecord } from '#domain/command.ts';
import type { LedgerOutcome } from '#domain/ledger.ts';
import { LedgerOutcomeSchema } from '#domain/ledger.ts';
import { accountOf, actorOf, authorOf } from '#domain/account.ts';
import { isProblem, ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import { batchAnswerOf } from './batch-confirmation.ts';
import { jsonAnswer, problemAnswer, type StoredAnswer } from './ledger-answers.ts';
import type { HistoryReader, LedgerIntent } from './ledger-intent.ts';
import type { Completion, LedgerActor, LedgerRow } from './ledger-rows.ts';
import type { LedgerStore } from './ledger-store.ts';
import { findSubmittedCommands, type UnsettledSubmission } from './reconcile.ts';
import type { DeviceCommandsRecorder } from './device-commands-recorder.ts';

export interface LedgerLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Settles a submission whose outcome was lost before another is sent for its device and window
 * (docs/architecture.md, Ledger): looks it up in the histories and records what it found.
 */
export class LedgerReconciler {
  readonly #store: LedgerStore;
  readonly #now: () => number;
  readonly #log: LedgerLog;
  readonly #recorder: DeviceCommandsRecorder | undefined;
  readonly #history: HistoryReader;

  constructor(options: {
    store: LedgerStore;
    now: () => number;
    log: LedgerLog;
    recorder: DeviceCommandsRecorder | undefined;
    history: HistoryReader;
  }) {
    this.#store = options.store;
    this.#now = options.now;
    this.#log = options.log;
    this.#recorder = options.recorder;
    this.#history = options.history;
  }

  /** @throws ProblemError 409 `window_unsettled` while an earlier one is leased; as reconcile. */
  async settleBlocking(
    actor: LedgerActor,
    intent: LedgerIntent,
    submission: UnsettledSubmission,
  ): Promise<void> {
    const rows = await this.#store.unsettled(actor, submission.deviceIds, submission);
    const nowMs = this.#now();
    const busyUntilMs = Math.max(0, ...rows.map((row) => row.leaseUntil?.getTime() ?? 0));
    if (busyUntilMs >= nowMs)
      throw new ProblemError(
        409,
        'window_unsettled',
        'An earlier submission for this device and window is still under way, or its outcome is still being confirmed. Nothing was sent; try again shortly.',
        {
          headers: { 'retry-after': String(Math.max(1, Math.ceil((busyUntilMs - nowMs) / 1000))) },
        },
      );
    for (const row of rows) {
      const rowSubmission = submissionOfRow(row);
      if (!rowSubmission) continue;
      const settled = await this.reconcile(row, intent, rowSubmission);
      if (!settled)
        await this.#complete(row, {
          state: 'failed',
          outcome: {
            reconciled: 'absent',
            error: { code: 'not_carried_out', message: NOT_CARRIED_OUT },
          },
          answer: problemAnswer(new ProblemError(409, 'not_carried_out', NOT_CARRIED_OUT)),
        });
    }
  }

  /**
   * Looks the submission up in the histories (decision 006, section 5); undefined when nothing was
   * found.
   *
   * @throws ProblemError 503 `reconciliation_pending` when a history cannot be read.
   */
  async reconcile(
    row: LedgerRow,
    intent: LedgerIntent,
    submission: UnsettledSubmission,
  ): Promise<StoredAnswer | undefined> {
    const { session } = intent;
    const history = intent.history ?? this.#history;
    // With a device's calls few (decision 007), a try that read every device anew could never finish.
    const remembered = new Set(LedgerOutcomeSchema.safeParse(row.outcome).data?.readWithoutCommand);
    const read: string[] = [];
    let found, unread;
    try {
      ({ found, unread } = await findSubmittedCommands(
        async (deviceId, range) => {
          const records = await history(session, deviceId, range);
          read.push(deviceId);
          return records;
        },
        submission,
        row.createdAt.getTime(),
        (deviceId) => this.#store.knownCommandIds(actorOf(session), deviceId, row.id),
        submission.deviceIds.filter((deviceId) => !remembered.has(deviceId)),
      ));
    } catch (error) {
      if (row.kind === 'batch' && read.length > 0)
        await this.#store.rememberReadWithoutCommand(row, read);
      if (isProblem(error, 'device_rate_limited')) throw unsettledUntilNextCall(error);
      // The cause's code, not its words: those may be the vendor's own message.
      const cause = error instanceof ProblemError ? ` (${error.problem.code})` : '';
      throw new ProblemError(
        503,
        'reconciliation_pending',
        `An earlier submission for this device and window has an unknown outcome, and the command history could not be read to settle it${cause}. Nothing was sent; try again in a moment.`,
        { headers: { 'retry-after': '5' } },
      );
    }
    if (found.size === 0) return undefined;
    await this.#recordFound(row, session, submission, found);
    const nowIso = new Date(this.#now()).toISOString();
    const commands = submission.deviceIds.flatMap((deviceId) => {
      const record = found.get(deviceId);
      return record ? [{ deviceId, id: record.id }] : [];
    });
    if (row.kind === 'batch') {
      const windowEnded = this.#now() >= Date.parse(submission.endTime);
      // An unread device is not known to lack its command: the read model goes on looking.
      const unreadDevices = new Set(unread);
      const unconfirmed = submission.deviceIds
        .filter((deviceId) => !found.has(deviceId))
        .map((deviceId) => ({
          deviceId,
          state:
            windowEnded && !unreadDevices.has(deviceId)
              ? ('notFound' as const)
              : ('confirming' as const),
        }));
      const outcome: LedgerOutcome = {
        status: 202,
        commands,
        unconfirmed,
        confirmation:
          unconfirmed.length === 0
            ? 'confirmed'
            : unconfirmed.some((device) => device.state === 'confirming')
              ? 'confirming'
              : 'incomplete',
        reconciled: 'found',
      };
      return this.#complete(row, {
        state: 'succeeded',
        outcome,
        answer: jsonAnswer(202, batchAnswerOf({ ...row, batchCommandId: null }, outcome, nowIso)),
      });
    }
    const first = commands[0];
    return this.#complete(row, {
      state: 'succeeded',
      outcome: { status: 202, commands, reconciled: 'found' },
      answer: jsonAnswer(202, { id: first?.id ?? '', message: RECONCILED, timestamp: nowIso }),
      commandId: first?.id,
    });
  }

  async #recordFound(
    row: LedgerRow,
    session: Session,
    submission: UnsettledSubmission,
    found: ReadonlyMap<string, StatusRecord>,
  ): Promise<void> {
    const recorder = this.#recorder;
    if (!recorder) return;
    const account = accountOf(session);
    const options = { madeBy: authorOf(session) };
    try {
      for (const [deviceId, record] of found)
        await recorder.recordSubmitted(account, deviceId, record, options);
      if (row.kind === 'batch' && found.size < submission.deviceIds.length)
        await recorder.recordBatchSent(
          account,
          {
            ledgerEntryId: row.id,
            deviceIds: submission.deviceIds,
            command: {
              powerControl: submission.powerControl,
              startTime: submission.startTime,
              endTime: submission.endTime,
            },
            answeredAt: row.createdAt.toISOString(),
          },
          options,
        );
    } catch (error) {
      this.#log.warn(
        { kind: row.kind, reason: error instanceof Error ? error.message : String(error) },
        'read model not told of a reconciled change; the device is read again later',
      );
    }
  }

  async #complete(row: LedgerRow, completion: Omit<Completion, 'nowMs'>): Promise<StoredAnswer> {
    await this.#store.complete(row.id, { ...completion, nowMs: this.#now() });
    return completion.answer;
  }
}

const RECONCILED = 'Accepted: confirmed from the command history after the first answer was lost';

const NOT_CARRIED_OUT =
  'The upstream did not carry this submission out (its outcome was unknown and the command history has no such command). Submit it again if it is still wanted.';

/** The devices and window a submit or batch sends; undefined for any other change. */
export function submissionOf(intent: LedgerIntent): UnsettledSubmission | undefined {
  if (intent.kind === 'submit')
    return { deviceIds: [intent.deviceId], ...intent.command, batch: false };
  if (intent.kind === 'batch')
    return { deviceIds: intent.batch.devices, ...intent.batch.command, batch: true };
  return undefined;
}

function submissionOfRow(row: LedgerRow): UnsettledSubmission | undefined {
  if (row.kind === 'submit' && row.deviceId) {
    const command = DeviceCommandSchema.safeParse(row.request);
    if (!command.success) return undefined;
    return { deviceIds: [row.deviceId], ...command.data, batch: false };
  }
  if (row.kind === 'batch') {
    const batch = BatchRequestSchema.safeParse(row.request);
    if (!batch.success) return undefined;
    return { deviceIds: batch.data.devices, ...batch.data.command, batch: true };
  }
  return undefined;
}

/**
 * Not `device_rate_limited`: that code says nothing was sent, so a fleet job or queued change could
 * report the device refused when it may hold the command.
 */
function unsettledUntilNextCall(cause: ProblemError): ProblemError {
  const waitS = Math.max(1, Number(cause.headers['retry-after']) || 60);
  return new ProblemError(
    429,
    'reconciliation_pending',
    `An earlier try of this change has an unknown outcome, and checking the device's commands waits for its next call to the vendor, in ${waitS} second${waitS === 1 ? '' : 's'}. Nothing new was sent.`,
    {
      ...(cause.problem.details ? { details: cause.problem.details } : {}),
      headers: { 'retry-after': String(waitS) },
    },
  );
}
