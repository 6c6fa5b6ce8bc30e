import type { DeviceBudgetStore, ReserveRequest, Reservation } from '../../device-budget-store.ts';

/**
 * Takes a slot as {@link DeviceBudgetStore.reserve} does for a call answered at once (settled at
 * `request.nowMs`): a call made and done, where a test needs calls spent rather than on their way.
 */
export async function answeredCall(
  budget: DeviceBudgetStore,
  request: ReserveRequest,
): Promise<Reservation> {
  const reservation = await budget.reserve(request);
  if (reservation.granted) await budget.settle(reservation.slotIds, request.nowMs);
  return reservation;
}
