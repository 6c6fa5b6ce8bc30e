import type { Region } from '#domain/token.ts';
import type { DeviceBudgetStore, Reservation } from './device-budget-store.ts';

/** As {@link DeviceBudgetStore.reserve} answers, in place of the budget's own reservation. */
export type TakeSlots = (deviceIds: readonly string[], nowMs: number) => Promise<Reservation>;

/**
 * The upstream calls of one try of a queued change's step (decision 007, sections 1 and 2). The
 * first call about a device spends the queue's reserved slot, so the read that settles an unknown
 * outcome never waits behind the change it settles; later calls take new slots in the change's
 * place, or are not made ({@link StepCalls.refusedUntilMs}).
 */
export class StepCalls {
  readonly #budget: DeviceBudgetStore;
  readonly #region: Region;
  readonly #change: { id: string; seq: number };
  readonly #unspent: Map<string, number>;
  #refusedUntilMs: number | undefined;

  /** @param options.slotIds one per device, in the order of `deviceIds`. */
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

  /** Each device's reserved slot while unspent, else a new one (all or none). */
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

  /** Upstream clock ms. */
  get refusedUntilMs(): number | undefined {
    return this.#refusedUntilMs;
  }

  /** The upstream counted nothing for them. */
  async releaseUnspent(): Promise<void> {
    const slotIds = [...this.#unspent.values()];
    this.#unspent.clear();
    await this.#budget.release(slotIds);
  }
}
