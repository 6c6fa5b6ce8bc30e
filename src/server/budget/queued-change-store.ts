import { eq } from 'drizzle-orm';
import { checkPlanDeadline } from '#domain/device-budget.ts';
import { siteClockWords } from '#domain/time.ts';
import { WINDOW_ENDED_WORDS, windowHasEnded } from '#domain/time-window.ts';
import { sameAccount } from '#domain/account.ts';
import {
  commandOfChange,
  devicesOfChange,
  devicesOfStep,
  queuedBatchCancelOf,
  queuedCancelOf,
  type ChangeStep,
  type QueuedCancel,
  type QueuedChange,
  type QueuedChangeOutcome,
  type QueuedChangeState,
} from '#domain/queued-change.ts';
import type { Database } from '#infra/database.ts';
import { queuedChangeDevices, queuedChanges } from '../db/schema.ts';
import { recordsOfKey, writeKeyRecord } from '../db/idempotency-records.ts';
import type { DeviceBudgetStore } from './device-budget-store.ts';
import {
  changeRowOf,
  remainingSteps,
  statusOf,
  type ChangeOwner,
  type QueuedChangeRow,
  type NewQueuedChange,
  type QueueOutcome,
  type StepEnd,
  type StepProgress,
  type StepStart,
} from './queued-change-rows.ts';
import { QueuedChangeReads } from './queued-change-reads.ts';

export function budgetTooTightDetail(earliestStartMs: number): string {
  return `The devices' calls to the vendor cannot carry this change before its window starts. Nothing was sent. The earliest start it allows is ${siteClockWords(earliestStartMs, undefined)}.`;
}

function windowEndedAt(change: QueuedChange, nowMs: number): boolean {
  const command = commandOfChange(change);
  return command !== undefined && windowHasEnded(command, nowMs);
}

/**
 * Told of a change that ended (sent, failed or withdrawn) within the transaction that ends it,
 * with that transaction: what it writes commits with the end or not at all.
 */
export type QueuedChangeEnded = (tx: Database, row: QueuedChangeRow) => Promise<void>;

/**
 * The table of queued changes (decision 007, section 2). Every change of state holds the change's
 * row lock and every plan its devices' budget locks, so racing instances change it once.
 */
export class QueuedChangeStore extends QueuedChangeReads {
  readonly #budget: DeviceBudgetStore;
  readonly #onEnded: QueuedChangeEnded | undefined;

  /**
   * @param options.onEnded writes what a change's end tells others (its webhook event) in the
   *   transaction that ends it; when it throws, the change does not end then.
   */
  constructor(
    db: Database,
    budget: DeviceBudgetStore,
    options: { onEnded?: QueuedChangeEnded | undefined } = {},
  ) {
    super(db);
    this.#budget = budget;
    this.#onEnded = options.onEnded;
  }

  /** After the sandbox's reset: a change planned against the old account must not be sent. */
  async forgetAll(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.delete(queuedChangeDevices);
      await tx.delete(queuedChanges);
    });
  }

  create(input: NewQueuedChange): Promise<QueueOutcome> {
    const { owner, change, nowMs } = input;
    const deviceIds = devicesOfChange(change);
    return this.db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      await this.#budget.lockDevices(tx, owner.region, deviceIds);
      if (input.idempotencyKey !== undefined) {
        const { queue } = await recordsOfKey(tx, owner, input.idempotencyKey);
        const [known] = queue
          ? await tx.select().from(queuedChanges).where(eq(queuedChanges.id, queue.holderId))
          : [];
        if (known)
          return {
            queued: false,
            reason: 'same_key',
            row: changeRowOf(known),
            sameRequest: known.requestHash === (input.requestHash ?? null),
          };
      }
      const already = await this.#queuedCancelIn(tx, owner, change);
      if (already) return already;
      const { plan } = await this.#budget.planIn(
        tx,
        owner.region,
        change.steps.map(devicesOfStep),
        nowMs,
      );
      if (input.deadline) {
        const check = checkPlanDeadline(plan, input.deadline);
        if (!check.fits)
          return {
            queued: false,
            reason: 'budget_too_tight',
            plan,
            earliestStartMs: check.earliestStartMs,
          };
      }
      if (input.onlyIfNow && (plan[0] as number) > nowMs)
        return { queued: false, reason: 'would_wait', plan };
      const now = new Date(nowMs);
      const steps: StepProgress[] = plan.map((plannedAtMs) => ({
        state: 'waiting',
        plannedAtMs,
        attempts: 0,
      }));
      const [row] = await tx
        .insert(queuedChanges)
        .values({
          id: input.id,
          region: owner.region,
          clientId: owner.clientId,
          operatorName: owner.operatorName ?? null,
          operator: owner.operator ?? null,
          secretCiphertext: input.secretCiphertext ?? null,
          kind: change.kind,
          change,
          steps,
          state: 'queued',
          nextAt: new Date(plan[0] as number),
          deadlineAt: input.deadline
            ? new Date(input.deadline.windowStartMs - input.deadline.leadMs)
            : null,
          leadMs: input.deadline?.leadMs ?? null,
          idempotencyKey: input.idempotencyKey ?? null,
          requestHash: input.requestHash ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (input.idempotencyKey !== undefined)
        await writeKeyRecord(tx, {
          owner,
          idempotencyKey: input.idempotencyKey,
          holder: 'queue',
          holderId: input.id,
          requestHash: input.requestHash ?? null,
          nowMs,
        });
      await tx
        .insert(queuedChangeDevices)
        .values(
          deviceIds.map((deviceId) => ({ changeId: input.id, region: owner.region, deviceId })),
        );
      return { queued: true, row: changeRowOf(row as typeof queuedChanges.$inferSelect) };
    });
  }

  withdraw(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    id: string,
    nowMs: number,
    detail = 'Withdrawn before it was sent; nothing was sent.',
  ): Promise<{ withdrawn: boolean; row: QueuedChangeRow | undefined }> {
    return this.db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      const row = await this.#lockRow(tx, id);
      if (!row || !sameAccount(row.owner, owner)) return { withdrawn: false, row: undefined };
      if (row.state !== 'queued') return { withdrawn: false, row };
      const ended = await this.#write(tx, row, {
        state: 'withdrawn',
        steps: row.steps,
        nextAtMs: undefined,
        outcome: { detail },
        nowMs,
      });
      return { withdrawn: true, row: ended };
    });
  }

  /**
   * Starts the change's next step if due and its devices have a slot, in one transaction under the
   * row and budget locks. A step found under way was interrupted and is started again: the ledger's
   * key makes a repeated call a replay. A replan past the deadline fails it `budget_too_tight`.
   */
  startStep(id: string, nowMs: number, leaseMs: number): Promise<StepStart> {
    return this.db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      const row = await this.#lockRow(tx, id);
      if (!row || (row.state !== 'queued' && row.state !== 'sending'))
        return { kind: 'ended', row };
      const remaining = remainingSteps(row);
      const next = remaining[0];
      if (!next) return { kind: 'ended', row };
      const progress = row.steps[next.index] as StepProgress;
      if (progress.state === 'waiting' && progress.plannedAtMs > nowMs)
        return { kind: 'not_due', row, atMs: progress.plannedAtMs };

      await this.#budget.lockDevices(
        tx,
        row.owner.region,
        remaining.flatMap((step) => step.deviceIds),
      );
      const waiting = {
        ...row,
        steps: row.steps.map((step, index) =>
          index === next.index ? { ...step, state: 'waiting' as const } : step,
        ),
      };
      const planned = await this.#replanIn(tx, waiting, nowMs, nowMs);
      if (planned.kind === 'ended') return { ...planned, written: true };
      const atMs = planned.plan[0] as number;
      if (atMs > nowMs) return { kind: 'not_due', row: planned.row, atMs };
      const reservation = await this.#budget.reserveIn(tx, {
        region: row.owner.region,
        deviceIds: next.deviceIds,
        kind: 'control',
        nowMs,
        change: { id: row.id, seq: row.seq },
      });
      // Not expected: the plan said now, under the same locks.
      if (!reservation.granted)
        return { kind: 'not_due', row: planned.row, atMs: reservation.nextFreeAtMs };
      const steps = planned.row.steps.map((step, index) =>
        index === next.index
          ? {
              ...step,
              state: 'sending' as const,
              attempts: step.attempts + 1,
              startedAtMs: nowMs,
              maybeSent: true,
            }
          : step,
      );
      const started = await this.#write(tx, planned.row, {
        state: 'sending',
        steps,
        nextAtMs: nowMs + leaseMs,
        nowMs,
      });
      return {
        kind: 'go',
        row: started,
        index: next.index,
        step: row.change.steps[next.index] as ChangeStep,
        slotIds: reservation.slotIds,
      };
    });
  }

  /**
   * Records how step `index` ended, unless another try finished it first.
   *
   * @returns the change as it stands, and whether this call wrote it.
   */
  finishStep(
    id: string,
    index: number,
    end: StepEnd,
    nowMs: number,
  ): Promise<{ row: QueuedChangeRow | undefined; written: boolean }> {
    return this.db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      const row = await this.#lockRow(tx, id);
      const progress = row?.steps[index];
      if (!row || progress?.state !== 'sending') return { row, written: false };
      const written = (change: QueuedChangeRow) => ({ row: change, written: true });
      const answer = 'answer' in end && end.answer ? { answer: end.answer } : {};
      switch (end.result) {
        case 'sent': {
          const steps = row.steps.map((step, i) =>
            i === index ? { ...step, state: 'sent' as const, sentAtMs: nowMs, ...answer } : step,
          );
          const following = steps[index + 1];
          return written(
            await this.#write(tx, row, {
              state: following ? 'sending' : 'sent',
              steps,
              nextAtMs: following ? Math.max(following.plannedAtMs, nowMs) : undefined,
              nowMs,
            }),
          );
        }
        case 'refused':
        case 'given_up': {
          const steps = row.steps.map((step, i) =>
            i === index ? { ...step, state: 'failed' as const, sentAtMs: nowMs, ...answer } : step,
          );
          return written(
            await this.#write(tx, row, {
              state: 'failed',
              steps,
              nextAtMs: undefined,
              outcome: {
                failure:
                  end.result === 'refused'
                    ? 'refused'
                    : 'outcomeUnknown' in end && end.outcomeUnknown
                      ? 'outcome_unknown'
                      : 'not_sent',
                detail: end.detail,
              },
              nowMs,
            }),
          );
        }
        case 'again': {
          const deviceIds = devicesOfStep(row.change.steps[index] as ChangeStep);
          if (end.busyUntilMs !== undefined)
            await this.#budget.markBusyIn(tx, row.owner.region, deviceIds, end.busyUntilMs, nowMs);
          const waiting = {
            ...row,
            steps: row.steps.map((step, i) =>
              i === index
                ? {
                    ...step,
                    state: 'waiting' as const,
                    ...answer,
                    ...(end.notSent ? { maybeSent: false } : {}),
                    ...(end.failed ? { failures: (step.failures ?? 0) + 1 } : {}),
                  }
                : step,
            ),
          };
          await this.#budget.lockDevices(
            tx,
            row.owner.region,
            remainingSteps(waiting).flatMap((step) => step.deviceIds),
          );
          return written((await this.#replanIn(tx, waiting, nowMs, end.notBeforeMs)).row);
        }
      }
    });
  }
  async #replanIn(
    tx: Database,
    row: QueuedChangeRow,
    nowMs: number,
    fromMs: number,
  ): Promise<
    | { kind: 'planned'; row: QueuedChangeRow; plan: number[] }
    | { kind: 'ended'; row: QueuedChangeRow }
  > {
    const remaining = remainingSteps(row);
    const { plan } = await this.#budget.planIn(
      tx,
      row.owner.region,
      remaining.map((step) => step.deviceIds),
      Math.max(nowMs, fromMs),
      row.seq,
    );
    // Once a call may have reached the upstream the change goes on, rather than leave it half done.
    const nothingSent = row.steps.every((step) => step.state === 'waiting' && !step.maybeSent);
    if (nothingSent && row.deadlineAtMs !== undefined) {
      const leadMs = row.leadMs ?? 0;
      const check = checkPlanDeadline(plan, {
        windowStartMs: row.deadlineAtMs + leadMs,
        leadMs,
      });
      if (!check.fits) {
        const ended = await this.#write(tx, row, {
          state: 'failed',
          steps: row.steps,
          nextAtMs: undefined,
          outcome: {
            failure: 'budget_too_tight',
            detail: windowEndedAt(row.change, nowMs)
              ? WINDOW_ENDED_WORDS
              : budgetTooTightDetail(check.earliestStartMs),
            earliestStart: new Date(check.earliestStartMs).toISOString(),
          },
          nowMs,
        });
        return { kind: 'ended', row: ended };
      }
    }
    const steps = row.steps.map((step) => ({ ...step }));
    remaining.forEach((step, i) => {
      const progress = steps[step.index] as StepProgress;
      if (progress.state === 'waiting') progress.plannedAtMs = plan[i] as number;
    });
    const planned = await this.#write(tx, row, {
      state: row.state,
      steps,
      nextAtMs: plan[0],
      nowMs,
    });
    return { kind: 'planned', row: planned, plan };
  }

  /** Read under the devices' locks so two racing requests queue one change. */
  async #queuedCancelIn(
    tx: Database,
    owner: ChangeOwner,
    change: QueuedChange,
  ): Promise<Extract<QueueOutcome, { reason: 'already_queued' }> | undefined> {
    const cancels = change.steps.flatMap((step) => (step.call === 'cancel' ? [step] : []));
    const batchCancels = change.steps.flatMap((step) =>
      step.call === 'batchCancel' ? [step] : [],
    );
    if (cancels.length === 0 && batchCancels.length === 0) return undefined;
    const rows = (
      await this.#budget.waitingChangesIn(tx, owner.region, [
        ...cancels.map((step) => step.deviceId),
        ...batchCancels.flatMap((step) => step.deviceIds),
      ])
    ).filter((row) => sameAccount(row.owner, owner));
    const statuses = rows.map(statusOf);
    const refusal = (queued: QueuedCancel | undefined) => {
      const waiting = queued && rows.find((row) => row.id === queued.change.id);
      return queued && waiting
        ? {
            queued: false as const,
            reason: 'already_queued' as const,
            waiting,
            goesAtMs: Date.parse(queued.goesAt),
          }
        : undefined;
    };
    for (const step of cancels) {
      const found = refusal(queuedCancelOf(statuses, step.commandId));
      if (found) return { ...found, deviceId: step.deviceId, commandId: step.commandId };
    }
    for (const step of batchCancels) {
      const found = refusal(queuedBatchCancelOf(statuses, step.batchCommandId));
      if (found) return { ...found, batchCommandId: step.batchCommandId };
    }
    return undefined;
  }

  async #lockRow(tx: Database, id: string): Promise<QueuedChangeRow | undefined> {
    const [row] = await tx
      .select()
      .from(queuedChanges)
      .where(eq(queuedChanges.id, id))
      .for('update');
    return row ? changeRowOf(row) : undefined;
  }

  async #write(
    tx: Database,
    row: QueuedChangeRow,
    update: {
      state: QueuedChangeState;
      steps: StepProgress[];
      nextAtMs: number | undefined;
      outcome?: QueuedChangeOutcome | undefined;
      nowMs: number;
    },
  ): Promise<QueuedChangeRow> {
    const ended = update.state !== 'queued' && update.state !== 'sending';
    const endsNow = ended && (row.state === 'queued' || row.state === 'sending');
    const [written] = await tx
      .update(queuedChanges)
      .set({
        state: update.state,
        steps: update.steps,
        nextAt: update.nextAtMs === undefined ? null : new Date(update.nextAtMs),
        ...(update.outcome ? { outcome: update.outcome } : {}),
        ...(ended ? { secretCiphertext: null } : {}),
        updatedAt: new Date(update.nowMs),
      })
      .where(eq(queuedChanges.id, row.id))
      .returning();
    const changed = changeRowOf(written as typeof queuedChanges.$inferSelect);
    if (endsNow) await this.#onEnded?.(tx, changed);
    return changed;
  }
}
