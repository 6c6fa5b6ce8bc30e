import { devicesOfStep, type ChangeStep } from '#domain/queued-change.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import type { TakeSlots } from '../budget/step-calls.ts';
import type { LedgerAnswer } from '../ledger/ledger-answers.ts';
import type { HistoryReader, LedgerIntent } from '../ledger/ledger-intent.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { budgetedSend } from './budgeted-send.ts';
import { callOfStep, kindOf } from './change-kinds.ts';

/** How one step is sent: under its key, and where its slots come from. */
export interface StepSendOptions {
  idempotencyKey: string;
  /** `Powerdeck-Undo-Of`: the key of the change it undoes. */
  undoOf?: string | undefined;
  /** The browser's request it answers, named in the upstream's log. */
  requestId?: string | undefined;
  /**
   * Slots reserved already: by the route that found them free (`slotIds`, given back when the
   * ledger replays), or the queue's for the step (`take`, `StepCalls`); none: taken as it is sent.
   */
  slots?: { slotIds: number[] } | { take: TakeSlots } | undefined;
  /** A queued change's step reads the device's history with its own slots (decision 007, section 2). */
  history?: HistoryReader | undefined;
}

/**
 * Sends one step of a change through the command ledger, its adapter call spending a slot of
 * each of its devices (docs/decisions/007-device-call-budget.md, section 1): the one place a
 * change's call takes the budget, for routes, the queue of changes and fleet jobs alike. Without a
 * budget (tests of the fleet runner) the call goes as it is.
 */
export class ChangeSteps {
  readonly #ledger: Ledger;
  readonly #upstream: UpstreamApi;
  readonly #budget: DeviceBudgetStore | undefined;
  readonly #upstreamNow: () => number;

  /** @param options.upstreamNow the upstream's clock, epoch ms, on which the budget counts. */
  constructor(options: {
    ledger: Ledger;
    upstream: UpstreamApi;
    budget?: DeviceBudgetStore | undefined;
    upstreamNow: () => number;
  }) {
    this.#ledger = options.ledger;
    this.#upstream = options.upstream;
    this.#budget = options.budget;
    this.#upstreamNow = options.upstreamNow;
  }

  /**
   * The ledger's answer to `step` sent as `caller` (replayed for a known key). With no slot free
   * when it is sent, nothing is sent: 429 `device_rate_limited`; a 429 of the vendor marks the
   * devices busy until its `Retry-After`.
   *
   * @throws ProblemError the ledger's refusals (see `Ledger.run`).
   */
  async send(caller: Session, step: ChangeStep, options: StepSendOptions): Promise<LedgerAnswer> {
    const kind = kindOf(step);
    const call = callOfStep(step);
    const adapterCall = () => kind.send(this.#upstream, caller, call, options.requestId);
    const budgeted = this.#budget
      ? budgetedSend({
          budget: this.#budget,
          region: caller.region,
          deviceIds: devicesOfStep(step),
          upstreamNow: this.#upstreamNow,
          call: adapterCall,
          slotIds: options.slots && 'slotIds' in options.slots ? options.slots.slotIds : undefined,
          take: options.slots && 'take' in options.slots ? options.slots.take : undefined,
        })
      : undefined;
    try {
      return await this.#ledger.run({
        ...kind.intent(call, caller),
        idempotencyKey: options.idempotencyKey,
        ...(options.undoOf === undefined ? {} : { undoOf: options.undoOf }),
        ...(options.requestId === undefined ? {} : { requestId: options.requestId }),
        ...(options.history ? { history: options.history } : {}),
        send: budgeted?.send ?? adapterCall,
      } as LedgerIntent);
    } finally {
      await budgeted?.release();
    }
  }
}
