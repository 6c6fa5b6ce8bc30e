import type {
  BatchCommand,
  BatchConfirmation,
  BatchSubmissionResponse,
  UnconfirmedDevice,
} from '#domain/batch.ts';
import { LedgerOutcomeSchema, type LedgerOutcome } from '#domain/ledger.ts';

export function acceptedBatchOutcome(status: number, deviceIds: readonly string[]): LedgerOutcome {
  return {
    status,
    commands: [],
    confirmation: 'confirming',
    unconfirmed: deviceIds.map((deviceId) => ({ deviceId, state: 'confirming' })),
  };
}

/** An entry of an earlier version named every command: it is confirmed. */
export function batchAnswerOf(
  row: { batchCommandId: string | null; completedAt: Date | null; createdAt: Date },
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

export function isConfirmingBatch(row: { kind: string; state: string; outcome: unknown }): boolean {
  if (row.kind !== 'batch' || row.state !== 'succeeded') return false;
  const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
  return outcome.success && outcome.data.confirmation === 'confirming';
}

/**
 * A batch entry's outcome after the read model looked at some of its devices (decision 006,
 * section 5; docs/architecture.md, Ledger). Undefined when nothing changes.
 *
 * @param deviceIds the batch's devices, in its request's order.
 */
export function confirmedBatchOutcome(
  outcome: LedgerOutcome,
  deviceIds: readonly string[],
  found: ReadonlyMap<string, string>,
  notFound: ReadonlySet<string>,
): LedgerOutcome | undefined {
  const known = new Map((outcome.commands ?? []).map((c) => [c.deviceId, c.id]));
  let changed = false;
  for (const [deviceId, id] of found)
    if (!known.has(deviceId)) {
      known.set(deviceId, id);
      changed = true;
    }
  const commands: BatchCommand[] = deviceIds.flatMap((deviceId) => {
    const id = known.get(deviceId);
    return id ? [{ deviceId, id }] : [];
  });
  const unconfirmed: UnconfirmedDevice[] = (outcome.unconfirmed ?? [])
    .filter((device) => !known.has(device.deviceId))
    .map((device) => {
      if (device.state !== 'confirming' || !notFound.has(device.deviceId)) return device;
      changed = true;
      return { ...device, state: 'notFound' };
    });
  const confirmation: BatchConfirmation =
    unconfirmed.length === 0
      ? 'confirmed'
      : unconfirmed.every((device) => device.state === 'notFound')
        ? 'incomplete'
        : 'confirming';
  if (!changed && confirmation === outcome.confirmation) return undefined;
  return { ...outcome, commands, unconfirmed, confirmation };
}
