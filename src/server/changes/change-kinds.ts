import type { ChangeStep, QueuedChange } from '#domain/queued-change.ts';
import type { LedgerIntent } from '../ledger/ledger-intent.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';

/** `Omit` applied to each member of a union, so the result stays a discriminated union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type StepCall = ChangeStep['call'];

/**
 * A change of one call as a request names it: a step without its `Idempotency-Key`, and a batch
 * cancel without its devices (the ledger knows them: `Ledger.batchDevices`).
 */
export type ChangeCall = DistributiveOmit<ChangeStep, 'idempotencyKey' | 'deviceIds'>;
type CallOf<C extends StepCall> = Extract<ChangeCall, { call: C }>;

/** A ledger intent of a step, without what a request or a try adds (its key, its `send`). */
export type StepIntent = DistributiveOmit<
  Extract<LedgerIntent, { kind: StepCall }>,
  'send' | 'idempotencyKey' | 'undoOf' | 'requestId' | 'history'
>;

/** What is the same for every change of one kind of step, whoever sends it. */
export interface ChangeKind<C extends StepCall> {
  /** The ledger intent's fields: the ledger fingerprints and records them (`ledger-intent.ts`). */
  intent: (call: CallOf<C>, caller: Session) => StepIntent;
  /** The adapter's call; `requestId` names the browser's request in the upstream's log. */
  send: (
    upstream: UpstreamApi,
    caller: UpstreamCaller,
    step: CallOf<C>,
    requestId?: string,
  ) => Promise<CallResult<unknown>>;
  /** The device a `Powerdeck-Device-Version` is checked against (decision 007, section 5). */
  versionedDevice: (call: CallOf<C>) => string | undefined;
  /** The start of the new window it sends, its deadline less the lead time; none for a cancel. */
  windowStart: (call: CallOf<C>) => string | undefined;
  /** The kind of the queued change of this one step; an undo when it names `undoOf` and may. */
  queued: { kind: C; undoable: boolean };
}

/**
 * One row per kind of step a change is made of (src/server/README.md, A change to a device): the
 * ledger intent it runs as, the adapter's call, the device its version is checked on, its
 * deadline. Routes, the queue of changes and fleet jobs all send steps through it (`ChangeSteps`).
 * The devices a step spends a slot of are the domain's (`devicesOfStep`); what the ledger
 * fingerprints and records of each kind, the ledger's (`ledger-intent.ts`), as the ledger sits
 * below this folder.
 */
export const CHANGE_KINDS: { [C in StepCall]: ChangeKind<C> } = {
  submit: {
    intent: (call, caller) => ({
      kind: 'submit',
      session: caller,
      deviceId: call.deviceId,
      command: call.command,
    }),
    send: (upstream, caller, call, requestId) =>
      upstream.submit(caller, call.deviceId, call.command, requestId),
    versionedDevice: (call) => call.deviceId,
    windowStart: (call) => call.command.startTime,
    queued: { kind: 'submit', undoable: true },
  },
  cancel: {
    intent: (call, caller) => ({
      kind: 'cancel',
      session: caller,
      deviceId: call.deviceId,
      commandId: call.commandId,
    }),
    send: (upstream, caller, call, requestId) =>
      upstream.cancel(caller, { deviceId: call.deviceId, commandId: call.commandId }, requestId),
    versionedDevice: (call) => call.deviceId,
    windowStart: () => undefined,
    queued: { kind: 'cancel', undoable: true },
  },
  batch: {
    intent: (call, caller) => ({ kind: 'batch', session: caller, batch: call.batch }),
    send: (upstream, caller, call, requestId) => upstream.batch(caller, call.batch, requestId),
    versionedDevice: () => undefined,
    windowStart: (call) => call.batch.command.startTime,
    // A batch is never undone as a whole (its commands are cancelled one by one or together).
    queued: { kind: 'batch', undoable: false },
  },
  batchCancel: {
    intent: (call, caller) => ({
      kind: 'batchCancel',
      session: caller,
      batchCommandId: call.batchCommandId,
    }),
    send: (upstream, caller, call, requestId) =>
      upstream.batchCancel(caller, call.batchCommandId, requestId),
    versionedDevice: () => undefined,
    windowStart: () => undefined,
    queued: { kind: 'batchCancel', undoable: true },
  },
};

/** The row of a call's kind, typed for the call (TypeScript cannot correlate the two). */
export function kindOf(call: ChangeCall): ChangeKind<StepCall> {
  return CHANGE_KINDS[call.call] as unknown as ChangeKind<StepCall>;
}

/** The call a step makes: the step without its key and devices. */
export function callOfStep(step: ChangeStep): ChangeCall {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { idempotencyKey, ...rest } = step;
  if (rest.call !== 'batchCancel') return rest;
  return { call: 'batchCancel', batchCommandId: rest.batchCommandId };
}

/** The step of `call` under `idempotencyKey`; `deviceIds` are a batch cancel's. */
export function stepOf(call: ChangeCall, idempotencyKey: string, deviceIds: readonly string[]) {
  return (
    call.call === 'batchCancel'
      ? { ...call, deviceIds: [...deviceIds], idempotencyKey }
      : { ...call, idempotencyKey }
  ) as ChangeStep;
}

/** The queued change of one step, an undo when it names what it undoes and its kind may be one. */
export function singleChange(step: ChangeStep, undoOf: string | undefined): QueuedChange {
  const { queued } = kindOf(step);
  if (undoOf !== undefined && queued.undoable)
    return { kind: 'undo', undoOf, steps: [step] } as QueuedChange;
  return { kind: queued.kind, steps: [step] } as QueuedChange;
}
