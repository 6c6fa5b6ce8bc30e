import { unboundBatchDevices } from '#domain/batch.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import type { Account } from '#domain/account.ts';
import type { ReadModel } from '../read-model/read-model.ts';

/**
 * The ledger entries with each accepted batch's devices no longer followed because their site is
 * unbound (`outcome.unbound`, domain `unboundBatchDevices`), each with its command's last read
 * status, worked out from the read model when read (docs/architecture.md, Ledger: batches): the
 * batch pages and the overview then count them as final (as their command ended before the
 * unbind, else no longer followed) instead of asking for a status the BFF answers no more. Bound again, a
 * site's devices are followed again. Two queries for the whole page, none per entry.
 */
export async function withUnboundDevices(
  readModel: ReadModel,
  account: Account,
  entries: LedgerEntry[],
): Promise<LedgerEntry[]> {
  const batches = entries.filter(
    (entry) => entry.kind === 'batch' && entry.state === 'succeeded' && entry.deviceIds,
  );
  const deviceIds = [...new Set(batches.flatMap((entry) => entry.deviceIds ?? []))];
  const unbound = await readModel.unboundOf(account, deviceIds);
  if (unbound.size === 0) return entries;
  const refs = batches.flatMap((entry) =>
    (entry.outcome?.commands ?? [])
      .filter((command) => unbound.has(command.deviceId))
      .map((command) => ({ deviceId: command.deviceId, commandId: command.id })),
  );
  const records = await readModel.commands(account, refs);
  return entries.map((entry) => {
    if (!batches.includes(entry)) return entry;
    const commandOf = new Map((entry.outcome?.commands ?? []).map((c) => [c.deviceId, c.id]));
    const ended = unboundBatchDevices(entry.deviceIds ?? [], unbound, (deviceId) => {
      const commandId = commandOf.get(deviceId);
      return commandId === undefined ? undefined : records.get(`${deviceId} ${commandId}`);
    });
    return ended.length === 0 ? entry : { ...entry, outcome: { ...entry.outcome, unbound: ended } };
  });
}
