import type { BatchCancelResponse } from '../../domain/batch.ts';
import {
  applyCancellation,
  isFinalStatus,
  type CommandCancellation,
  type StatusRecord,
} from '../../domain/command.ts';
import {
  changeKindOf,
  type DeviceCommandChange,
  type DeviceCommandChanges,
  type DeviceVersion,
} from '../../domain/read-model.ts';
import { accountKey, personKey, type Account, type Person } from '../../domain/account.ts';
import {
  madeByName,
  type BoundSite,
  type DeviceCommandsRecorder,
  type RecordOptions,
  type SentBatch,
} from './device-commands-recorder.ts';

interface MemoryDevice {
  records: Map<string, StatusRecord>;
  changes: (DeviceCommandChange & { personKey?: string })[];
}

/**
 * {@link DeviceCommandsRecorder} in memory: versions and changes as the database's read model
 * keeps them, without reads from the vendor, storage or push. For tests of the write side, and
 * for a BFF without a database (one instance, nothing kept across a restart).
 */
export class MemoryDeviceCommands implements DeviceCommandsRecorder {
  readonly #devices = new Map<string, MemoryDevice>();
  /** The batches recorded as sent, oldest first (tests look at them). */
  readonly sentBatches: { account: Account; batch: SentBatch }[] = [];
  /** The sites bound, by account and site ID (tests look at them). */
  readonly boundSites = new Map<string, BoundSite>();

  async recordSubmitted(
    account: Account,
    deviceId: string,
    record: StatusRecord,
    options: RecordOptions = {},
  ): Promise<DeviceVersion> {
    return this.#write(account, deviceId, record, options);
  }

  async recordCancelled(
    account: Account,
    cancellation: CommandCancellation,
    options: RecordOptions = {},
  ): Promise<DeviceVersion> {
    const device = this.#device(account, cancellation.deviceId);
    const known = device.records.get(cancellation.commandId);
    if (!known || isFinalStatus(known.status)) return device.changes.length;
    return this.#write(
      account,
      cancellation.deviceId,
      applyCancellation(known, cancellation),
      options,
    );
  }

  async recordBatchSent(account: Account, batch: SentBatch): Promise<void> {
    this.sentBatches.push({ account, batch });
  }

  async recordBatchCancelled(
    account: Account,
    answer: BatchCancelResponse,
    options: RecordOptions = {},
  ): Promise<void> {
    for (const result of answer.results) {
      if (!result.success || !result.commandId) continue;
      await this.recordCancelled(
        account,
        {
          deviceId: result.deviceId,
          commandId: result.commandId,
          status: 'cancelled',
          cancelledAt: new Date().toISOString(),
          cancelReason: 'manuallyCancel',
        },
        options,
      );
    }
  }

  async recordSiteBound(account: Account, site: BoundSite): Promise<void> {
    this.boundSites.set(`${accountKey(account)} ${site.siteId}`, site);
  }

  async recordSiteUnbound(account: Account, siteId: string): Promise<void> {
    this.boundSites.delete(`${accountKey(account)} ${siteId}`);
  }

  async versionOf(account: Account, deviceId: string): Promise<DeviceVersion> {
    return this.#device(account, deviceId).changes.length;
  }

  async changesSince(
    account: Account,
    deviceId: string,
    sinceVersion: DeviceVersion,
    options: { exceptBy?: Person | undefined } = {},
  ): Promise<DeviceCommandChanges> {
    const device = this.#device(account, deviceId);
    const except = options.exceptBy ? personKey(options.exceptBy) : undefined;
    return {
      deviceId,
      sinceVersion,
      version: device.changes.length,
      changes: device.changes
        .filter((change) => change.version > sinceVersion)
        .filter((change) => except === undefined || change.personKey !== except)
        .map(({ personKey: _person, ...change }) => change),
      complete: true,
    };
  }

  /** The records known of a device, by command ID (tests look at them). */
  recordsOf(account: Account, deviceId: string): StatusRecord[] {
    return [...this.#device(account, deviceId).records.values()];
  }

  #write(
    account: Account,
    deviceId: string,
    record: StatusRecord,
    options: RecordOptions,
  ): DeviceVersion {
    const device = this.#device(account, deviceId);
    const before = device.records.get(record.id);
    const kind = changeKindOf(before, record);
    device.records.set(record.id, before && !kind ? before : record);
    if (kind)
      device.changes.push({
        version: device.changes.length + 1,
        kind,
        deviceId,
        commandId: record.id,
        startTime: record.startTime,
        endTime: record.endTime,
        at:
          kind === 'commandCancelled'
            ? (record.cancelledAt ?? record.receivedAt)
            : record.receivedAt,
        ...(record.cancelReason ? { cancelReason: record.cancelReason } : {}),
        ...(record.batchCommandId ? { batchCommandId: record.batchCommandId } : {}),
        ...(madeByName(options.madeBy) ? { madeBy: madeByName(options.madeBy) } : {}),
        ...(options.madeBy ? { personKey: personKey(options.madeBy.person) } : {}),
      });
    return device.changes.length;
  }

  #device(account: Account, deviceId: string): MemoryDevice {
    const key = `${accountKey(account)} ${deviceId}`;
    let device = this.#devices.get(key);
    if (!device) this.#devices.set(key, (device = { records: new Map(), changes: [] }));
    return device;
  }
}
