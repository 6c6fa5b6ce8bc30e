// Over 500 lines on purpose: its waiting-change rules read the schemas above; moving them out would need a re-export cycle or changing each of their importers.
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
 * Changes the budget of upstream calls cannot carry now wait in a durable queue and go at their
 * planned times (docs/decisions/007-device-call-budget.md, section 2). A change is one operator
 * intent made of one or two upstream calls ("steps"), each sent through the command ledger under
 * its own `Idempotency-Key`, so a step sent again after a crash is replayed, never sent twice.
 */

/**
 * Where a queued change stands: `queued` until its first step starts (only then may it be
 * withdrawn), `sending` while its steps go, then `sent`, `withdrawn` or `failed`.
 */
export const QUEUED_CHANGE_STATES = ['queued', 'sending', 'sent', 'withdrawn', 'failed'] as const;
export const QueuedChangeStateSchema = z.enum(QUEUED_CHANGE_STATES);
export type QueuedChangeState = z.infer<typeof QueuedChangeStateSchema>;

/** States in which a change still waits for (or is taking) a slot of its devices' budget. */
export const WAITING_CHANGE_STATES = ['queued', 'sending'] as const satisfies QueuedChangeState[];

/** Where one step stands. */
export const CHANGE_STEP_STATES = ['waiting', 'sending', 'sent', 'failed'] as const;
export const ChangeStepStateSchema = z.enum(CHANGE_STEP_STATES);
export type ChangeStepState = z.infer<typeof ChangeStepStateSchema>;

/**
 * An `Idempotency-Key` as the ledger takes it (printable ASCII without quotes or backslashes,
 * 1-255 characters; src/server/http/idempotency-key.ts).
 */
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
  /** The batch's devices, as the ledger knows them: a batch cancel spends a slot of each. */
  deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_BATCH_DEVICES),
  idempotencyKey: StepIdempotencyKeySchema,
});

/** One upstream call of a change, with the key the ledger records it under. */
export const ChangeStepSchema = z.discriminatedUnion('call', [
  SubmitStepSchema,
  CancelStepSchema,
  BatchStepSchema,
  BatchCancelStepSchema,
]);
export type ChangeStep = z.infer<typeof ChangeStepSchema>;

/** The upstream calls a step makes, as {@link ChangeStepSchema} names them. */
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
 * A change as the product describes it, each kind with its steps in sending order:
 * - `submit`, `cancel`, `batch`, `batchCancel`: one call;
 * - `replace`: a new window for a device's command, which the upstream only allows as a cancel
 *   followed by a new submission (docs/upstream.md, Lifecycle);
 * - `undo`: the reverse of an earlier change (docs/architecture.md, Ledger: Undo), naming that
 *   change's `Idempotency-Key` in `undoOf`: a cancel (of a submission), a submission (of a
 *   cancel), a cancel then a submission (of a replace) or a batch cancel (of a batch).
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

/** The kinds of change, as {@link QueuedChangeSchema} names them. */
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

/** The device command a change sends (its submission's or its batch's), if it sends one. */
export function commandOfChange(change: QueuedChange): DeviceCommand | undefined {
  for (const step of change.steps) {
    if (step.call === 'submit') return step.command;
    if (step.call === 'batch') return step.batch.command;
  }
  return undefined;
}

/** Every device a change acts on, each once, in the order its steps name them. */
export function devicesOfChange(change: QueuedChange): string[] {
  return [...new Set(change.steps.flatMap(devicesOfStep))];
}

/**
 * The `Idempotency-Key` of step `index` of a change made under one request's `key`: the key
 * itself for a change of one step (so its ledger entry carries the key the browser sent, and an
 * undo can name it), else `key` with `/1`, `/2` appended.
 *
 * @throws RangeError when the key leaves no room for the suffix (over 253 characters).
 */
export function stepIdempotencyKey(key: string, index: number, stepCount: number): string {
  if (stepCount === 1) return key;
  const stepKey = `${key}/${index + 1}`;
  if (stepKey.length > 255)
    throw new RangeError('an Idempotency-Key of a change of two steps may have 253 characters');
  return stepKey;
}

/** The person a company sign-in authenticated, with the role they had when they made the change. */
export const QueuedChangeOperatorSchema = OperatorSchema.extend({ role: RoleSchema });
export type QueuedChangeOperator = z.infer<typeof QueuedChangeOperatorSchema>;

/** What one step's call answered, as the product's ledger stored it. */
export const StepAnswerSchema = z.object({ status: z.number().int(), body: z.unknown() });
export type StepAnswer = z.infer<typeof StepAnswerSchema>;

/** Why a change ended without all its steps sent, in the operator's words. */
export const QUEUED_CHANGE_FAILURES = [
  /** The upstream refused a step (its answer holds why); later steps were not sent. */
  'refused',
  /** The budget moved its last step past the lead time before the new window: nothing was sent. */
  'budget_too_tight',
  /** A step could not be sent after every try (the upstream kept failing). */
  'not_sent',
  /**
   * A try of a step may have reached the upstream (its answer was lost) and its history could not
   * be read to settle whether it was carried out: never reported as not sent.
   */
  'outcome_unknown',
] as const;
export const QueuedChangeFailureSchema = z.enum(QUEUED_CHANGE_FAILURES);
export type QueuedChangeFailure = z.infer<typeof QueuedChangeFailureSchema>;

/** How a change ended when it did not end `sent`. */
export const QueuedChangeOutcomeSchema = z.object({
  failure: QueuedChangeFailureSchema.optional(),
  /** What happened, for the operator. */
  detail: z.string(),
  /** `budget_too_tight`: the earliest window start the budget allows now. */
  earliestStart: UtcTimestampSchema.optional(),
});
export type QueuedChangeOutcome = z.infer<typeof QueuedChangeOutcomeSchema>;

/** One step as the product's status of a change shows it; times on the upstream's clock, UTC. */
export const QueuedChangeStepStatusSchema = z.object({
  call: z.enum(CHANGE_STEP_CALLS),
  deviceIds: z.array(DeviceIdSchema),
  state: ChangeStepStateSchema,
  /** When the step goes (or went): the earliest moment its devices' budget allows. */
  plannedAt: UtcTimestampSchema,
  /** When its call was answered. */
  sentAt: UtcTimestampSchema.optional(),
  answer: StepAnswerSchema.optional(),
  /**
   * The `Idempotency-Key` its ledger entry is written under: an undo of this step names it in
   * `undoOf` (a replace's submission is its second step's).
   */
  idempotencyKey: StepIdempotencyKeySchema.optional(),
  /** A cancel's command. */
  commandId: CommandIdSchema.optional(),
  /** A batch cancel's batch. */
  batchCommandId: BatchCommandIdSchema.optional(),
  /** What a submission or a batch sends: the power control and its effective window. */
  command: DeviceCommandSchema.optional(),
});
export type QueuedChangeStepStatus = z.infer<typeof QueuedChangeStepStatusSchema>;

/** A queued change as the product answers it (its status, also after a reload or a restart). */
export const QueuedChangeStatusSchema = z.object({
  id: z.string(),
  kind: z.enum(QUEUED_CHANGE_KINDS),
  state: QueuedChangeStateSchema,
  deviceIds: z.array(DeviceIdSchema),
  steps: z.array(QueuedChangeStepStatusSchema),
  /** When its next step goes, while it waits. */
  goesAt: UtcTimestampSchema.optional(),
  /** The key of the change it undoes. */
  undoOf: z.string().optional(),
  outcome: QueuedChangeOutcomeSchema.optional(),
  /** Who made it, in words (display name or typed name), when the sign-in named them. */
  madeBy: z.string().optional(),
  createdAt: UtcTimestampSchema,
  updatedAt: UtcTimestampSchema,
});
export type QueuedChangeStatus = z.infer<typeof QueuedChangeStatusSchema>;

/**
 * Why a change waits instead of going now: its devices' calls of the rolling minute are spent
 * (`no_slot`), the vendor said a device is busy (`device_busy`: a 429, another client of the
 * account spent them), or changes queued before it on its devices go first (`changes_waiting`).
 */
export const QUEUED_REASONS = ['no_slot', 'device_busy', 'changes_waiting'] as const;
export const QueuedReasonSchema = z.enum(QUEUED_REASONS);
export type QueuedReason = z.infer<typeof QueuedReasonSchema>;

/**
 * A change the budget could not carry now, as the submission, cancel, batch and batch cancel
 * routes answer it (202) instead of their usual answer (docs/architecture.md, BFF surface): the
 * queued change's ID (`GET /api/changes`, `DELETE /api/changes/{changeId}`), when it goes (UTC,
 * on the upstream's clock; the SPA shows it on the site's clock), why it waits, and its devices.
 */
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
 * A change to one device's commands planned as a whole by the BFF (`POST
 * /api/devices/{deviceId}/changes`, docs/decisions/007-device-call-budget.md, section 2): every
 * step gets its slot of the device's budget before the first is sent, so a replace is never left
 * half done by the browser.
 * - `replace`: a new window (and power control) for command `commandId`: a cancel, then a
 *   submission of `command`;
 * - `undoSubmit`: the undo of a submission, a cancel of `commandId` (whose window starts at
 *   `startTime`: the cancel must go before it, since undo never stops a started command);
 * - `undoCancel`: the undo of a cancel, `command` (the cancelled one's) sent again;
 * - `undoReplace`: the undo of a replace, the restore of the replaced window: a cancel of the new
 *   command `commandId`, then `command` (the old one's) sent again.
 * `undoOf` is the `Idempotency-Key` of the change undone (a replace's: its submission's step,
 * `QueuedChangeStepStatus.idempotencyKey`).
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

/**
 * `POST /api/devices/{deviceId}/changes?ifLater=`: what to do with a change the device's budget
 * cannot send at once. `queue` (the default) queues it; `refuse` writes and sends nothing and
 * answers 409 `change_would_wait` with when it would go, so a screen can ask the operator first.
 */
export const DeviceChangeQuerySchema = z.strictObject({
  ifLater: z.enum(['queue', 'refuse']).optional(),
});
export type DeviceChangeQuery = z.infer<typeof DeviceChangeQuerySchema>;
export type DeviceChangeKind = DeviceChangeRequest['kind'];

/**
 * What `POST /api/devices/{deviceId}/changes` answers: 200 once every step was sent, with the
 * cancellation and the new command (`cancelled`, `submitted`) its steps made; 202 while it waits
 * (`queued`), its steps then go at their planned times (`GET /api/changes` follows it, and events
 * `queuedChangeChanged` tell when it moved on).
 */
export const DeviceChangeAnswerSchema = z.object({
  change: QueuedChangeStatusSchema,
  queued: QueuedAnswerSchema.shape.queued.optional(),
  cancelled: CommandCancellationSchema.optional(),
  submitted: SubmissionResponseSchema.optional(),
});
export type DeviceChangeAnswer = z.infer<typeof DeviceChangeAnswerSchema>;

/** Most changes one `GET /api/changes` answers. */
export const QUEUED_CHANGE_LIST_MAX = 200;

/** `GET /api/changes`: which changes to list. */
export const QueuedChangeQuerySchema = z.strictObject({
  /** Only the changes still waiting or being sent (`true`); default all, recent first. */
  waiting: z.enum(['true', 'false']).optional(),
  deviceId: DeviceIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(QUEUED_CHANGE_LIST_MAX).optional(),
});
export type QueuedChangeQuery = z.infer<typeof QueuedChangeQuerySchema>;

/** `GET /api/changes`: the account's queued changes, newest first. */
export const QueuedChangePageSchema = z.object({ changes: z.array(QueuedChangeStatusSchema) });
export type QueuedChangePage = z.infer<typeof QueuedChangePageSchema>;

/**
 * What a waiting change will still do to one device, step by step: a window it will submit (a
 * submission, a replace's new window, a batch's window on each of its devices) or a command it
 * will cancel. `goesAt` is when that step goes (its planned time, UTC); `withdrawable` while the
 * change has not started sending (only then may it be withdrawn).
 */
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
 * The steps of `changes` not sent yet, per device, in the changes' order: a change that ended
 * (sent, withdrawn, failed) has none, nor has a step already sent or failed (a replace whose
 * cancel went leaves only its new window). A batch cancel names its batch, not the device's
 * command, so it is left out (the batch's page shows it). docs/decisions/007-device-call-budget.md,
 * section 2.
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

/** The waiting change that will still cancel a command, as {@link queuedCancelOf} finds it. */
export interface QueuedCancel {
  /**
   * The change: a cancel, a replace (its first step), or an undo of the command's submission; for
   * a batch ({@link queuedBatchCancelOf}), a batch cancel or the undo of the batch's submission.
   */
  change: QueuedChangeStatus;
  /** When its cancel of the command goes (the step's planned time), ISO 8601 UTC. */
  goesAt: string;
  /** While the change has not started sending: only then may it be withdrawn. */
  withdrawable: boolean;
}

/**
 * The waiting change of `changes` that will still cancel command `commandId`, or undefined. A
 * command has at most one: while one waits, the BFF refuses another change of the command (a
 * second cancel, a replace, an undo) with 409 `change_already_queued`, since the vendor would
 * refuse the later one and it would spend a call of the device for nothing; the screens offer to
 * withdraw the queued one instead of cancelling again. docs/decisions/007-device-call-budget.md,
 * section 2.
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

/**
 * The waiting change of `changes` that will still cancel batch `batchCommandId` (its batch cancel
 * not sent yet), or undefined. A batch has at most one, as a command has ({@link queuedCancelOf}):
 * while one waits, the BFF refuses another cancel of the batch with 409 `change_already_queued`,
 * since the later one would find nothing left to cancel and spend a call of each of the batch's
 * devices for nothing. docs/decisions/007-device-call-budget.md, section 2.
 */
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

/**
 * Details of a 409 `change_already_queued`: the command of `deviceId` ({@link queuedCancelOf}),
 * or the batch `batchCommandId` ({@link queuedBatchCancelOf}), that a queued change (`changeId`,
 * of `kind`) will cancel at `goesAt`, ISO 8601 UTC. Nothing was sent or queued.
 */
export const ChangeAlreadyQueuedDetailsSchema = z.union([
  AlreadyQueuedChangeSchema.extend({ deviceId: DeviceIdSchema, commandId: CommandIdSchema }),
  AlreadyQueuedChangeSchema.extend({ batchCommandId: BatchCommandIdSchema }),
]);
export type ChangeAlreadyQueuedDetails = z.infer<typeof ChangeAlreadyQueuedDetailsSchema>;
