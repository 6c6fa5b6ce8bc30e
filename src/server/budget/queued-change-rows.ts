import { z } from 'zod';
import {
  ChangeStepStateSchema,
  QueuedChangeOperatorSchema,
  QueuedChangeOutcomeSchema,
  QueuedChangeSchema,
  QueuedChangeStateSchema,
  StepAnswerSchema,
  devicesOfChange,
  devicesOfStep,
  type QueuedChange,
  type QueuedChangeOutcome,
  type ChangeStep,
  type QueuedChangeState,
  type QueuedChangeStatus,
  type QueuedChangeStepStatus,
  type StepAnswer,
} from '#domain/queued-change.ts';
import { actorName, type AccountActor } from '#domain/account.ts';
import { RegionSchema } from '#domain/token.ts';
import type { queuedChanges } from '../db/schema.ts';

export type ChangeOwner = AccountActor;

/** Times epoch ms on the upstream's clock. */
export const StepProgressSchema = z.object({
  state: ChangeStepStateSchema,
  /** Planned again on a miss. */
  plannedAtMs: z.number(),
  /** A start after a crash counts. */
  attempts: z.number().int().min(0),
  /** A 429 is no failure. */
  failures: z.number().int().min(0).optional(),
  maybeSent: z.boolean().optional(),
  startedAtMs: z.number().optional(),
  sentAtMs: z.number().optional(),
  answer: StepAnswerSchema.optional(),
});
export type StepProgress = z.infer<typeof StepProgressSchema>;

export interface QueuedChangeRow {
  id: string;
  seq: number;
  owner: ChangeOwner;
  secretCiphertext: string | null;
  change: QueuedChange;
  steps: StepProgress[];
  state: QueuedChangeState;
  nextAtMs: number | undefined;
  deadlineAtMs: number | undefined;
  leadMs: number | undefined;
  outcome: QueuedChangeOutcome | undefined;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

const StepsColumnSchema = z.array(StepProgressSchema);

/** @throws ZodError when a JSON column does not hold what this release writes. */
export function changeRowOf(row: typeof queuedChanges.$inferSelect): QueuedChangeRow {
  const operator =
    row.operator === null ? undefined : QueuedChangeOperatorSchema.parse(row.operator);
  return {
    id: row.id,
    seq: row.seq,
    owner: {
      region: RegionSchema.parse(row.region),
      clientId: row.clientId,
      ...(row.operatorName === null ? {} : { operatorName: row.operatorName }),
      ...(operator ? { operator } : {}),
    },
    secretCiphertext: row.secretCiphertext,
    change: QueuedChangeSchema.parse(row.change),
    steps: StepsColumnSchema.parse(row.steps),
    state: QueuedChangeStateSchema.parse(row.state),
    nextAtMs: row.nextAt?.getTime(),
    deadlineAtMs: row.deadlineAt?.getTime(),
    leadMs: row.leadMs ?? undefined,
    outcome: row.outcome === null ? undefined : QueuedChangeOutcomeSchema.parse(row.outcome),
    idempotencyKey: row.idempotencyKey,
    requestHash: row.requestHash,
    createdAtMs: row.createdAt.getTime(),
    updatedAtMs: row.updatedAt.getTime(),
  };
}

export function remainingSteps(
  row: Pick<QueuedChangeRow, 'change' | 'steps'>,
): { index: number; deviceIds: string[]; plannedAtMs: number }[] {
  return row.change.steps.flatMap((step, index) => {
    const progress = row.steps[index];
    if (!progress || progress.state === 'sent' || progress.state === 'failed') return [];
    return [{ index, deviceIds: devicesOfStep(step), plannedAtMs: progress.plannedAtMs }];
  });
}

export function statusOf(row: QueuedChangeRow): QueuedChangeStatus {
  const iso = (ms: number) => new Date(ms).toISOString();
  const waiting = row.state === 'queued' || row.state === 'sending';
  const next = waiting ? remainingSteps(row)[0] : undefined;
  return {
    id: row.id,
    kind: row.change.kind,
    state: row.state,
    deviceIds: devicesOfChange(row.change),
    steps: row.change.steps.map((step, index) => {
      const progress = row.steps[index] as StepProgress;
      return {
        call: step.call,
        deviceIds: devicesOfStep(step),
        state: progress.state,
        plannedAt: iso(progress.plannedAtMs),
        ...(progress.sentAtMs === undefined ? {} : { sentAt: iso(progress.sentAtMs) }),
        ...(progress.answer ? { answer: progress.answer } : {}),
        idempotencyKey: step.idempotencyKey,
        ...stepSubject(step),
      };
    }),
    ...(next ? { goesAt: iso(next.plannedAtMs) } : {}),
    ...(row.change.kind === 'undo' ? { undoOf: row.change.undoOf } : {}),
    ...(row.outcome ? { outcome: row.outcome } : {}),
    ...(actorName(row.owner) ? { madeBy: actorName(row.owner) } : {}),
    createdAt: iso(row.createdAtMs),
    updatedAt: iso(row.updatedAtMs),
  };
}

function stepSubject(
  step: ChangeStep,
): Pick<QueuedChangeStepStatus, 'commandId' | 'batchCommandId' | 'command'> {
  switch (step.call) {
    case 'submit':
      return { command: step.command };
    case 'cancel':
      return { commandId: step.commandId };
    case 'batch':
      return { command: step.batch.command };
    case 'batchCancel':
      return { batchCommandId: step.batchCommandId };
  }
}

export interface NewQueuedChange {
  id: string;
  owner: ChangeOwner;
  /** Sealed by the product with the change ID bound. */
  secretCiphertext?: string | undefined;
  change: QueuedChange;
  /** For a change sending a new window: refused when its last step would miss the lead time. */
  deadline?: { windowStartMs: number; leadMs: number } | undefined;
  idempotencyKey?: string | undefined;
  requestHash?: string | undefined;
  /** `ifLater=refuse`. */
  onlyIfNow?: boolean | undefined;
  nowMs: number;
}

export type QueueOutcome =
  | { queued: true; row: QueuedChangeRow }
  | { queued: false; reason: 'same_key'; row: QueuedChangeRow; sameRequest: boolean }
  /** Decision 007, section 2: 409 `budget_too_tight`. */
  | { queued: false; reason: 'budget_too_tight'; plan: number[]; earliestStartMs: number }
  | { queued: false; reason: 'would_wait'; plan: number[] }
  /** A command or batch has at most one queued change (domain `queuedCancelOf`, `queuedBatchCancelOf`). */
  | ({
      queued: false;
      reason: 'already_queued';
      waiting: QueuedChangeRow;
      goesAtMs: number;
    } & ({ deviceId: string; commandId: string } | { batchCommandId: string }));

export type StepStart =
  /** `written` when this call ended it (past its deadline). */
  | { kind: 'ended'; row: QueuedChangeRow | undefined; written?: boolean }
  | { kind: 'not_due'; row: QueuedChangeRow; atMs: number }
  | { kind: 'go'; row: QueuedChangeRow; index: number; step: ChangeStep; slotIds: number[] };

export type StepEnd =
  | { result: 'sent'; answer: StepAnswer }
  | { result: 'refused'; answer: StepAnswer; detail: string }
  /** `notSent` when the call certainly did not reach the upstream, so a missed deadline can still refuse. */
  | {
      result: 'again';
      notBeforeMs: number;
      busyUntilMs?: number | undefined;
      notSent: boolean;
      /** A 429 is no failure. */
      failed: boolean;
      answer?: StepAnswer | undefined;
    }
  | {
      result: 'given_up';
      detail: string;
      outcomeUnknown?: boolean | undefined;
      answer?: StepAnswer | undefined;
    };
