import type { Region } from '../../domain/token.ts';
import type { DeviceBudgetStore, Reservation } from './device-budget-store.ts';

/**
 * Takes one slot of each device for a call at `nowMs` (upstream clock), as
 * {@link DeviceBudgetStore.reserve} answers: what {@link budgetedSend} and {@link budgetedHistory}
 * ask when they are given one in place of the budget's own reservation.
 */
export type TakeSlots = (deviceIds: readonly string[], nowMs: number) => Promise<Reservation>;

/**
 * The upstream calls of one try of a queued change's step, each spending a slot of its devices in
 * the change's place in their queue (docs/decisions/007-device-call-budget.md, sections 1 and 2).
 *
 * The queue reserved a slot of each of the step's devices when the step became due. The try's
 * first call about a device spends that slot: the step's own call, or, when an earlier try's
 * outcome is unknown, the read of the device's history that settles it (docs/architecture.md,
 * Ledger). So that read goes at the device's next free call and never waits behind the change it
 * settles. A later call of the same try (the submission sent again once the read found it not
 * carried out, a further page of history) takes a new slot after the changes queued before this
 * one only; when there is none, the call is not made and {@link StepCalls.refusedUntilMs} says
 * when the device is free for it.
 */
export class StepCalls {
  readonly #budget: DeviceBudgetStore;
  readonly #region: Region;
  readonly #change: { id: string; seq: number };
  /** The slots the queue reserved for the step and no call has spent yet, by device. */
  readonly #unspent: Map<string, number>;
  #refusedUntilMs: number | undefined;

  /**
   * @param options.deviceIds the step's devices, each once, in the order of `slotIds`.
   * @param options.slotIds the slots the queue reserved for the step, one per device.
   * @param options.change the queued change: its ID and its place (`seq`) in its devices' queue.
   */
  constructor(options: {
    budget: DeviceBudgetStore;
    region: Region;
    change: { id: string; seq: number };
    deviceIds: readonly string[];
    slotIds: readonly number[];
  }) {
    this.#budget = options.budget;
    this.#region = options.region;
    this.#change = options.change;
    this.#unspent = new Map(
      options.deviceIds.flatMap((deviceId, i) => {
        const slotId = options.slotIds[i];
        return slotId === undefined ? [] : [[deviceId, slotId] as const];
      }),
    );
  }

  /**
   * Slots of `deviceIds` for one call now: each device's reserved slot while unspent, else a new
   * one in the change's place (all or none). Refused, nothing spent, when a device has no free
   * call; the answer then says when it has.
   */
  readonly take: TakeSlots = async (deviceIds, nowMs) => {
    const ids = [...new Set(deviceIds)];
    const others = ids.filter((id) => !this.#unspent.has(id));
    let taken: number[] = [];
    if (others.length > 0) {
      const reservation = await this.#budget.reserve({
        region: this.#region,
        deviceIds: others,
        kind: 'control',
        nowMs,
        change: this.#change,
      });
      if (!reservation.granted) {
        this.#refusedUntilMs = Math.max(this.#refusedUntilMs ?? 0, reservation.nextFreeAtMs);
        return reservation;
      }
      taken = reservation.slotIds;
    }
    const reserved = ids.flatMap((id) => {
      const slotId = this.#unspent.get(id);
      this.#unspent.delete(id);
      return slotId === undefined ? [] : [slotId];
    });
    return { granted: true, slotIds: [...reserved, ...taken], atMs: nowMs };
  };

  /** When a call of this try found no free slot: when its devices have one, upstream clock ms. */
  get refusedUntilMs(): number | undefined {
    return this.#refusedUntilMs;
  }

  /**
   * Gives back the reserved slots no call spent (the ledger replayed an answer, or the try waited
   * for an earlier one still settling): the upstream counted nothing, so the budget counts
   * nothing either.
   */
  async releaseUnspent(): Promise<void> {
    const slotIds = [...this.#unspent.values()];
    this.#unspent.clear();
    await this.#budget.release(slotIds);
  }
}
