import {
  BatchRequestSchema,
  type BatchCommand,
  type BatchConfirmation,
  type BatchSubmissionResponse,
  type UnconfirmedDevice,
} from '../../domain/batch.ts';
import type { StatusRecord } from '../../domain/command.ts';
import { LedgerOutcomeSchema, type LedgerOutcome } from '../../domain/ledger.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { jsonAnswer } from './ledger-answers.ts';
import type { LedgerActor, LedgerRow, LedgerStore } from './ledger-store.ts';
import { findSubmittedCommands } from './reconcile.ts';

/** A batch's devices are looked for again at most this often, per entry and instance. */
export const CONFIRM_INTERVAL_MS = 5_000;

/** Histories read at once while confirming one batch. */
export const CONFIRM_CONCURRENCY = 4;

/** The outcome of a batch just accepted: nothing found yet, every device confirming. */
export function acceptedBatchOutcome(status: number, deviceIds: readonly string[]): LedgerOutcome {
  return {
    status,
    commands: [],
    confirmation: 'confirming',
    unconfirmed: deviceIds.map((deviceId) => ({ deviceId, state: 'confirming' })),
  };
}

/**
 * The product's answer for a batch entry as it stands: the commands found so far, the devices
 * not confirmed (yet), and where the search stands. An entry of an earlier version named every
 * command: it is confirmed.
 */
export function batchAnswerOf(
  row: Pick<LedgerRow, 'batchCommandId' | 'completedAt' | 'createdAt'>,
  outcome: LedgerOutcome,
  timestamp?: string,
): BatchSubmissionResponse {
  return {
    ...(row.batchCommandId ? { batchCommandId: row.batchCommandId } : {}),
    timestamp: timestamp ?? (row.completedAt ?? row.createdAt).toISOString(),
    confirmation: outcome.confirmation ?? 'confirmed',
    commands: outcome.commands ?? [],
    unconfirmed: outcome.unconfirmed ?? [],
  };
}

/**
 * Finds each device's command of an accepted batch in its history (docs/decisions/006,
 * section 5; docs/architecture.md, Ledger): the vendor's answer names none. A device's command
 * has the batch's window and power control, was received after the batch was written (less a
 * clock allowance) and is not another entry's. Found commands go into the entry's outcome and
 * stored answer; a device still unfound once the window has ended is `notFound`. Each entry is
 * looked at most every {@link CONFIRM_INTERVAL_MS} by this instance, one look at a time.
 */
export class BatchConfirmations {
  readonly #store: LedgerStore;
  readonly #upstream: UpstreamApi;
  readonly #now: () => number;
  readonly #lastLookMs = new Map<number, number>();
  readonly #inFlight = new Map<number, Promise<Map<string, StatusRecord>>>();

  constructor(options: { store: LedgerStore; upstream: UpstreamApi; now: () => number }) {
    this.#store = options.store;
    this.#upstream = options.upstream;
    this.#now = options.now;
  }

  /** True while `row` is a batch whose devices are still looked for. */
  static isConfirming(row: LedgerRow): boolean {
    if (row.kind !== 'batch' || row.state !== 'succeeded') return false;
    const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
    return outcome.success && outcome.data.confirmation === 'confirming';
  }

  /**
   * Looks for the unconfirmed devices of batch entry `row` now, unless it was looked at less
   * than {@link CONFIRM_INTERVAL_MS} ago (`force` looks anyway) or is not confirming.
   *
   * @returns the status records found by this look, per device (empty when none was made).
   * @throws ProblemError when a history cannot be read (what was found before stays).
   */
  confirm(
    row: LedgerRow,
    session: Session,
    actor: LedgerActor,
    options: { force?: boolean } = {},
  ): Promise<Map<string, StatusRecord>> {
    const running = this.#inFlight.get(row.id);
    if (running) return running;
    const nowMs = this.#now();
    if (!options.force && nowMs - (this.#lastLookMs.get(row.id) ?? 0) < CONFIRM_INTERVAL_MS)
      return Promise.resolve(new Map());
    if (!BatchConfirmations.isConfirming(row)) return Promise.resolve(new Map());
    this.#lastLookMs.set(row.id, nowMs);
    if (this.#lastLookMs.size > 10_000) this.#lastLookMs.clear();
    const look = this.#look(row, session, actor).finally(() => this.#inFlight.delete(row.id));
    this.#inFlight.set(row.id, look);
    return look;
  }

  async #look(row: LedgerRow, session: Session, actor: LedgerActor) {
    const outcome = LedgerOutcomeSchema.parse(row.outcome);
    const request = BatchRequestSchema.safeParse(row.request);
    if (!request.success) return new Map<string, StatusRecord>();
    const { devices, command } = request.data;
    const pending = (outcome.unconfirmed ?? []).filter((device) => device.state === 'confirming');
    // The vendor's own time of the batch, when its answer said: its commands were received then,
    // on the same clock, however far the BFF's runs from it.
    const answered = (row.response as { body?: { timestamp?: unknown } } | null)?.body?.timestamp;
    const answeredMs = typeof answered === 'string' ? Date.parse(answered) : Number.NaN;
    const found = await findSubmittedCommands(
      (deviceId, range) => this.#upstream.history(session, deviceId, range),
      { deviceIds: devices, ...command, batch: true },
      Number.isNaN(answeredMs) ? row.createdAt.getTime() : answeredMs,
      (deviceId) => this.#store.knownCommandIds(actor, deviceId, row.id),
      pending.map((device) => device.deviceId),
      CONFIRM_CONCURRENCY,
    );
    const windowEnded = this.#now() >= Date.parse(command.endTime);
    // In the batch's device order, whatever order the histories answered in.
    const known = new Map((outcome.commands ?? []).map((c) => [c.deviceId, c.id]));
    for (const [deviceId, record] of found) known.set(deviceId, record.id);
    const commands: BatchCommand[] = devices.flatMap((deviceId) => {
      const id = known.get(deviceId);
      return id ? [{ deviceId, id }] : [];
    });
    const unconfirmed: UnconfirmedDevice[] = (outcome.unconfirmed ?? [])
      .filter((device) => !found.has(device.deviceId))
      .map((device) =>
        device.state === 'confirming' && windowEnded ? { ...device, state: 'notFound' } : device,
      );
    const confirmation: BatchConfirmation =
      unconfirmed.length === 0
        ? 'confirmed'
        : unconfirmed.every((device) => device.state === 'notFound')
          ? 'incomplete'
          : 'confirming';
    if (found.size === 0 && confirmation === outcome.confirmation) return found;
    const next: LedgerOutcome = { ...outcome, commands, unconfirmed, confirmation };
    const stored = LedgerOutcomeSchema.safeParse(row.outcome);
    await this.#store.updateOutcome(
      row.id,
      next,
      jsonAnswer(
        202,
        batchAnswerOf(row, next, typeof answered === 'string' ? answered : undefined),
      ),
    );
    if (stored.success) row.outcome = next;
    return found;
  }
}
