import type { BatchCancelResponse } from '#domain/batch.ts';
import type { CommandCancellation, StatusRecord } from '#domain/command.ts';
import { applyCancellation } from '#domain/command.ts';
import type { DeviceCommandChanges, DeviceVersion } from '#domain/read-model.ts';
import { personKey, type Account, type Person } from '#domain/account.ts';
import {
  madeByName,
  type RecordOptions,
  type SentBatch,
} from '../ledger/device-commands-recorder.ts';
import type { ConfirmationRow } from './read-model-store.ts';
import { accountOf, type ReadModelCore } from './read-model-core.ts';

/**
 * What the vendor accepted, recorded by the ledger (the `DeviceCommandsRecorder` seam), so every
 * browser of the account sees it before the device's next read. A part of `ReadModel`.
 */
export class ReadModelRecording {
  readonly #core: ReadModelCore;

  constructor(core: ReadModelCore) {
    this.#core = core;
  }

  async recordSubmitted(
    account: Account,
    deviceId: string,
    record: StatusRecord,
    options: RecordOptions = {},
  ): Promise<DeviceVersion> {
    account = accountOf(account);
    return this.#core.learnNow(account, deviceId, [{ record, madeBy: options.madeBy }]);
  }

  async recordCancelled(
    account: Account,
    cancellation: CommandCancellation,
    options: RecordOptions = {},
  ): Promise<DeviceVersion> {
    account = accountOf(account);
    const { deviceId, commandId } = cancellation;
    const known = await this.#core.store.commandsByIds(this.#core.store.db, account, deviceId, [
      commandId,
    ]);
    const before = known.get(commandId);
    // Unknown to the read model: the device's next read brings it, cancelled.
    if (!before) return this.#core.learnNow(account, deviceId, [], { readSoon: true });
    return this.#core.learnNow(account, deviceId, [
      { record: applyCancellation(before.record, cancellation), madeBy: options.madeBy },
    ]);
  }

  async recordBatchSent(
    account: Account,
    batch: SentBatch,
    options: RecordOptions = {},
  ): Promise<void> {
    account = accountOf(account);
    const sentAtMs = Date.parse(batch.answeredAt);
    const rows: ConfirmationRow[] = batch.deviceIds.map((deviceId) => ({
      ledgerEntryId: batch.ledgerEntryId,
      deviceId,
      batchCommandId: batch.batchCommandId ?? null,
      powerControl: batch.command.powerControl,
      startTime: batch.command.startTime,
      endTime: batch.command.endTime,
      sentAtMs: Number.isNaN(sentAtMs) ? this.#core.now() : sentAtMs,
      madeBy: options.madeBy?.person,
      madeByName: madeByName(options.madeBy),
    }));
    await this.#core.addConfirmations(account, rows);
  }

  async recordBatchCancelled(
    account: Account,
    answer: BatchCancelResponse,
    options: RecordOptions = {},
  ): Promise<void> {
    account = accountOf(account);
    const cancelledAt = new Date(this.#core.now()).toISOString();
    for (const result of answer.results)
      if (result.success && result.commandId)
        await this.recordCancelled(
          account,
          {
            deviceId: result.deviceId,
            commandId: result.commandId,
            status: 'cancelled',
            cancelledAt,
            cancelReason: 'manuallyCancel',
          },
          options,
        );
  }

  async versionOf(account: Account, deviceId: string): Promise<DeviceVersion> {
    account = accountOf(account);
    return (await this.#core.store.stateOf(account, deviceId))?.version ?? 0;
  }

  async changesSince(
    account: Account,
    deviceId: string,
    sinceVersion: DeviceVersion,
    options: { exceptBy?: Person | undefined } = {},
  ): Promise<DeviceCommandChanges> {
    account = accountOf(account);
    const version = await this.versionOf(account, deviceId);
    const exceptKey = options.exceptBy ? personKey(options.exceptBy) : undefined;
    const changes = await this.#core.store.changesAfter(account, deviceId, sinceVersion, exceptKey);
    const oldest = await this.#core.store.oldestKeptVersion(account, deviceId);
    const complete =
      version <= sinceVersion || (oldest !== undefined && oldest <= sinceVersion + 1);
    return { deviceId, sinceVersion, version, changes, complete };
  }
}
