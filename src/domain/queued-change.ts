import { z } from 'zod';
import { BatchRequestSchema, MAX_BATCH_DEVICES } from './batch.ts';
import {
  CommandCancellationSchema,
  DeviceCommandSchema,
  SubmissionResponseSchema,
  type DeviceCommand,
} from './command.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { RoleSchema } from './roles.ts';
import { OperatorSchema } from './session.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * Changes the budget cannot carry now wait durably and go at their planned times
 * (docs/decisions/007-device-call-budget.md, section 2). Each step goes through the ledger under
 * its own `Idempotency-Key`, so a step sent again after a crash is replayed, never sent twice.
 */

/** Only a `queued` change (no step started) may be withdrawn. */
export const QUEUED_CHANGE_STATES = ['queued', 'sending', 'sent', 'withdrawn', 'failed'] as const;
export const QueuedChangeStateSchema = z.enum(QUEUED_CHANGE_STATES);
export type QueuedChangeState = z.infer<typeof QueuedChangeStateSchema>;

/** Still waiting for, or taking, a slot of its devices' budget. */
export const WAITING_CHANGE_STATES = ['queued', 'sending'] as const satisfies QueuedChangeState[];

/** Whether a change in `state` still waits for, or takes, a slot (one of {@link WAITING_CHANGE_STATES}). */
export const isWaitingChange = (state: QueuedChangeState): boolean =>
  (WAITING_CHANGE_STATES as readonly QueuedChangeState[]).includes(state);

export const CHANGE_STEP_STATES = ['waiting', 'sending', 'sent', 'failed'] as const;
export const ChangeStepStateSchema = z.enum(CHANGE_STEP_STATES);
export type ChangeStepState = z.infer<typeof ChangeStepStateSchema>;

/** As the ledger takes it (src/server/http/idempotency-key.ts). */
export const StepIdempotencyKeySchema = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,255}$/, { error: 'must be 1-255 printable characters' });

const SubmitStepSchema = z.strictObject({
  call: z.literal('submit'),
  deviceId: DeviceIdSchema,
  command: DeviceCommandSchema,
  idempotencyKey: StepIdempotencyKeySchema,
});
const CancelStepSchema = z.strictObject({
  call: z.literal('cancel'),
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  idempotencyKey: StepIdempotencyKeySchema,
});
const BatchStepSchema = z.strictObject({
  call: z.literal('batch'),
  batch: BatchRequestSchema,
  idempotencyKey: StepIdempotencyKeySchema,
});
const BatchCancelStepSchema = z.strictObject({
  call: z.literal('batchCancel'),
  batchCommandId: BatchCommandIdSchema,
  /** A batch cancel spends a slot of each. */
  deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_BATCH_DEVICES),
  idempotencyKey: StepIdempotencyKeySchema,
});

export const ChangeStepSchema = z.discriminatedUnion('call', [
  SubmitStepSchema,
  CancelStepSchema,
  BatchStepSchema,
  BatchCancelStepSchema,
]);
export type ChangeStep = z.infer<typeof ChangeStepSchema>;

export const CHANGE_STEP_CALLS = [
  'submit',
  'cancel',
  'batch',
  'batchCancel',
] as const satisfies readonly ChangeStep['call'][];

const sameDevice = (steps: readonly { deviceId: string }[]) =>
  steps.every((step) => step.deviceId === steps[0]?.deviceId);
const ONE_DEVICE = { error: 'both steps must be for the same device', path: ['steps'] };

/**
 * A change, its steps in sending order. `replace` is a cancel then a submission, the only way the
 * upstream allows a new window (docs/upstream.md, Lifecycle); `undo` names the undone change's key
 * in `undoOf` (docs/architecture.md, Ledger: Undo).
 */
export const QueuedChangeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('submit'), steps: z.tuple([SubmitStepSchema]) }),
  z.strictObject({ kind: z.literal('cancel'), steps: z.tuple([CancelStepSchema]) }),
  z
    .strictObject({
      kind: z.literal('replace'),
      steps: z.tuple([CancelStepSchema, SubmitStepSchema]),
    })
    .refine((change) => sameDevice(change.steps), ONE_DEVICE),
  z
    .strictObject({
      kind: z.literal('undo'),
      undoOf: StepIdempotencyKeySchema,
      steps: z.union([
        z.tuple([CancelStepSchema]),
        z.tuple([SubmitStepSchema]),
        z.tuple([CancelStepSchema, SubmitStepSchema]),
        z.tuple([BatchCancelStepSchema]),
      ]),
    })
    .refine(
      (change) =>
        change.steps[0].call === 'batchCancel' ||
        sameDevice(change.steps as readonly { deviceId: string }[]),
      ONE_DEVICE,
    ),
  z.strictObject({ kind: z.literal('batch'), steps: z.tuple([BatchStepSchema]) }),
  z.strictObject({ kind: z.literal('batchCancel'), steps: z.tuple([BatchCancelStepSchema]) }),
]);
export type QueuedChange = z.infer<typeof QueuedChangeSchema>;

export const QUEUED_CHANGE_KINDS = [
  'submit',
  'cancel',
  'replace',
  'undo',
  'batch',
  'batchCancel',
] as const satisfies readonly QueuedChange['kind'][];
export type QueuedChangeKind = QueuedChange['kind'];

/** The devices one step spends a slot of. */
export function devicesOfStep(step: ChangeStep): string[] {
  switch (step.call) {
    case 'submit':
    case 'cancel':
      return [step.deviceId];
    case 'batch':
      return [...step.batch.devices];
    case 'batchCancel':
      return [...step.deviceIds];
  }
}

/** Its submission's or its batch's, if any. */
export function commandOfChange(change: QueuedChange): DeviceCommand | undefined {
  for (const step of change.steps) {
    if (step.call === 'submit') return step.command;
    if (step.call === 'batch') return step.batch.command;
  }
  return undefined;
}

/** Each device once, in the order the steps name them. */
export function devicesOfChange(change: QueuedChange): string[] {
  return [...new Set(change.steps.flatMap(devicesOfStep))];
}

/**
 * A one-step change keeps the browser's key, so its ledger entry carries it and an undo can name
 * it; otherwise `key/1`, `key/2`. @throws RangeError when `key` is over 253 characters.
 */
export function stepIdempotencyKey(key: string, index: number, stepCount: number): string {
  if (stepCount === 1) return key;
  const stepKey = `${key}/${index + 1}`;
  if (stepKey.length > 255)
    throw new RangeError('an Idempotency-Key of a change of two steps may have 253 characters');
  return stepKey;
}

/** With the role they had when they made the change. */
export const QueuedChangeOperatorSchema = OperatorSchema.extend({ role: RoleSchema });
export type QueuedChangeOperator = z.infer<typeof QueuedChangeOperatorSchema>;

/** As the ledger stored it. */
export const StepAnswerSchema = z.object({ status: z.number().int(), body: z.unknown() });
export type StepAnswer = z.infer<typeof StepAnswerSchema>;

export const QUEUED_CHANGE_FAILURES = [
  /** Later steps were not sent. */
  'refused',
  /** The budget moved its last step past the lead time before the new window: nothing was sent. */
  'budget_too_tight',
  'not_sent',
  /** A try may have reached the upstream and its history could not settle it: never "not sent". */
  'outcome_unknown',
] as const;
export const QueuedChangeFailureSchema = z.enum(QUEUED_CHANGE_FAILURES);
export type QueuedChangeFailure = z.infer<typeof QueuedChangeFailureSchema>;

export const QueuedChangeOutcomeSchema = z.object({
  failure: QueuedChangeFailureSchema.optional(),
  detail: z.string(),
  /** `budget_too_tight`: the earliest window start the budget allows now. */
  earliestStart: UtcTimestampSchema.optional(),
});
export type QueuedChangeOutcome = z.infer<typeof QueuedChangeOutcomeSchema>;

/** Times on the upstream's clock, UTC. */
export const QueuedChangeStepStatusSchema = z.object({
  call: z.enum(CHANGE_STEP_CALLS),
  deviceIds: z.array(DeviceIdSchema),
  state: ChangeStepStateSchema,
  /** The earliest moment its devices' budget allows. */
  plannedAt: UtcTimestampSchema,
  sentAt: UtcTimestampSchema.optional(),
  answer: StepAnswerSchema.optional(),
  /** An undo of this step names it in `undoOf` (a replace's: its second step's). */
  idempotencyKey: StepIdempotencyKeySchema.optional(),
  commandId: CommandIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  command: DeviceCommandSchema.optional(),
});
export type QueuedChangeStepStatus = z.infer<typeof QueuedChangeStepStatusSchema>;

/** As `GET /api/changes` answers it, also after a restart. */
export const QueuedChangeStatusSchema = z.object({
  id: z.string(),
  kind: z.enum(QUEUED_CHANGE_KINDS),
  state: QueuedChangeStateSchema,
  deviceIds: z.array(DeviceIdSchema),
  steps: z.array(QueuedChangeStepStatusSchema),
  goesAt: UtcTimestampSchema.optional(),
  undoOf: z.string().optional(),
  outcome: QueuedChangeOutcomeSchema.optional(),
  /** Display name or typed name, when the sign-in named them. */
  madeBy: z.string().optional(),
  createdAt: UtcTimestampSchema,
  updatedAt: UtcTimestampSchema,
});
export type QueuedChangeStatus = z.infer<typeof QueuedChangeStatusSchema>;

/**
 * `no_slot`: its devices' calls of the minute are spent; `device_busy`: the vendor answered 429
 * (another client spent them); `changes_waiting`: earlier changes on its devices go first.
 */
export const QUEUED_REASONS = ['no_slot', 'device_busy', 'changes_waiting'] as const;
export const QueuedReasonSchema = z.enum(QUEUED_REASONS);
export type QueuedReason = z.infer<typeof QueuedReasonSchema>;

/** The 202 a change route answers instead of its usual one (docs/architecture.md, BFF surface). */
export const QueuedAnswerSchema = z.object({
  queued: z.object({
    changeId: z.string(),
    goesAt: UtcTimestampSchema,
    reason: QueuedReasonSchema,
    deviceIds: z.array(DeviceIdSchema),
  }),
});
export type QueuedAnswer = z.infer<typeof QueuedAnswerSchema>;

/** True when a change route's answer says the change was queued. */
export function isQueuedAnswer(answer: unknown): answer is QueuedAnswer {
  return QueuedAnswerSchema.safeParse(answer).success;
}

/**
 * A change to one device's commands planned as a whole (docs/decisions/007-device-call-budget.md,
 * section 2): every step gets its slot before the first is sent, so a replace is never left half
 * done. `undoSubmit` carries `startTime`: the cancel must go before it, since undo never stops a
 * started command. `undoOf` is the undone change's key (a replace's: its submission step's).
 */
export const DeviceChangeRequestSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('replace'),
    commandId: CommandIdSchema,
    command: DeviceCommandSchema,
  }),
  z.strictObject({
    kind: z.literal('undoSubmit'),
    undoOf: StepIdempotencyKeySchema,
    commandId: CommandIdSchema,
    startTime: UtcTimestampSchema,
  }),
  z.strictObject({
    kind: z.literal('undoCancel'),
    undoOf: StepIdempotencyKeySchema,
    command: DeviceCommandSchema,
  }),
  z.strictObject({
    kind: z.literal('undoReplace'),
    undoOf: StepIdempotencyKeySchema,
    commandId: CommandIdSchema,
    command: DeviceCommandSchema,
  }),
]);
export type DeviceChangeRequest = z.infer<typeof DeviceChangeRequestSchema>;

/** `refuse` sends nothing and answers 409 `change_would_wait`, so a screen can ask first. */
export const DeviceChangeQuerySchema = z.strictObject({
  ifLater: z.enum(['queue', 'refuse']).optional(),
});
export type DeviceChangeQuery = z.infer<typeof DeviceChangeQuerySchema>;
export type DeviceChangeKind = DeviceChangeRequest['kind'];

/** 200 once every step was sent; 202 while it waits (`GET /api/changes` follows it). */
export const DeviceChangeAnswerSchema = z.object({
  change: QueuedChangeStatusSchema,
  queued: QueuedAnswerSchema.shape.queued.optional(),
  cancelled: CommandCancellationSchema.optional(),
  submitted: SubmissionResponseSchema.optional(),
});
export type DeviceChangeAnswer = z.infer<typeof DeviceChangeAnswerSchema>;

export const QUEUED_CHANGE_LIST_MAX = 200;

export const QueuedChangeQuerySchema = z.strictObject({
  /** Default all, recent first. */
  waiting: z.enum(['true', 'false']).optional(),
  deviceId: DeviceIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(QUEUED_CHANGE_LIST_MAX).optional(),
});
export type QueuedChangeQuery = z.infer<typeof QueuedChangeQuerySchema>;

/** Body of `GET /api/changes`: newest first. */
export const QueuedChangePageSchema = z.object({ changes: z.array(QueuedChangeStatusSchema) });
export type QueuedChangePage = z.infer<typeof QueuedChangePageSchema>;

/** What a waiting change will still do to one device; `goesAt` UTC. */
export type PendingDeviceChange =
  | {
      call: 'submit';
      changeId: string;
      deviceId: string;
      command: DeviceCommand;
      goesAt: string;
      withdrawable: boolean;
    }
  | {
      call: 'cancel';
      changeId: string;
      deviceId: string;
      commandId: string;
      goesAt: string;
      withdrawable: boolean;
    };

/**
 * A batch cancel names its batch, not a command, so it is left out (the batch's page shows it).
 * docs/decisions/007-device-call-budget.md, section 2.
 */
export function pendingDeviceChanges(
  changes: readonly QueuedChangeStatus[],
): PendingDeviceChange[] {
  const pending: PendingDeviceChange[] = [];
  for (const change of changes) {
    if (!(WAITING_CHANGE_STATES as readonly string[]).includes(change.state)) continue;
    const withdrawable = change.state === 'queued';
    for (const step of change.steps) {
      if (step.state === 'sent' || step.state === 'failed') continue;
      const base = { changeId: change.id, goesAt: step.plannedAt, withdrawable };
      if ((step.call === 'submit' || step.call === 'batch') && step.command) {
        for (const deviceId of step.deviceIds)
          pending.push({ ...base, call: 'submit', deviceId, command: step.command });
      } else if (step.call === 'cancel' && step.commandId) {
        for (const deviceId of step.deviceIds)
          pending.push({ ...base, call: 'cancel', deviceId, commandId: step.commandId });
      }
    }
  }
  return pending;
}

export interface QueuedCancel {
  change: QueuedChangeStatus;
  /** ISO 8601 UTC. */
  goesAt: string;
  /** Only then may it be withdrawn. */
  withdrawable: boolean;
}

/**
 * At most one per command: while one waits the BFF refuses another change of it with 409
 * `change_already_queued`, as the vendor would refuse it and it would spend a call for nothing
 * (docs/decisions/007-device-call-budget.md, section 2).
 */
export function queuedCancelOf(
  changes: readonly QueuedChangeStatus[],
  commandId: string,
): QueuedCancel | undefined {
  for (const change of changes) {
    const pending = pendingDeviceChanges([change]).find(
      (step) => step.call === 'cancel' && step.commandId === commandId,
    );
    if (pending) return { change, goesAt: pending.goesAt, withdrawable: pending.withdrawable };
  }
  return undefined;
}

/** At most one per batch, as {@link queuedCancelOf}. */
export function queuedBatchCancelOf(
  changes: readonly QueuedChangeStatus[],
  batchCommandId: string,
): QueuedCancel | undefined {
  for (const change of changes) {
    if (!(WAITING_CHANGE_STATES as readonly string[]).includes(change.state)) continue;
    const step = change.steps.find(
      (candidate) =>
        candidate.call === 'batchCancel' &&
        candidate.batchCommandId === batchCommandId &&
        candidate.state !== 'sent' &&
        candidate.state !== 'failed',
    );
    if (step) return { change, goesAt: step.plannedAt, withdrawable: change.state === 'queued' };
  }
  return undefined;
}

const AlreadyQueuedChangeSchema = z.object({
  changeId: z.string(),
  kind: z.enum(QUEUED_CHANGE_KINDS),
  goesAt: UtcTimestampSchema,
});

/** Details of a 409 `change_already_queued`; `goesAt` ISO 8601 UTC. Nothing was sent or queued. */
export const ChangeAlreadyQueuedDetailsSchema = z.union([
  AlreadyQueuedChangeSchema.extend({ deviceId: DeviceIdSchema, commandId: CommandIdSchema }),
  AlreadyQueuedChangeSchema.extend({ batchCommandId: BatchCommandIdSchema }),
]);
export type ChangeAlreadyQueuedDetails = z.infer<typeof ChangeAlreadyQueuedDetailsSchema>;
