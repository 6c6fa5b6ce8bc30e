import type { BatchCancelResponse } from '#domain/batch.ts';
import type { CommandCancellation, DeviceCommand, StatusRecord } from '#domain/command.ts';
import type { DeviceCommandChanges, DeviceVersion } from '#domain/read-model.ts';
import type { Account, Actor, Person } from '#domain/account.ts';

/**
 * The seam between the changes the BFF makes and its read model of device commands
 * (docs/decisions/007-device-call-budget.md, sections 3 and 5; docs/architecture.md, Read model).
 *
 * The write side tells it what the vendor accepted, as soon as it answers: the ledger calls the
 * `record*` methods for every submission, cancel, batch and batch cancel it sees accepted (and
 * for a submission settled from the history), so a route or a queued change's step that runs
 * through the ledger records without calling them itself. Every `record*` is idempotent: the same
 * command recorded twice changes nothing the second time, so a caller that records again after
 * the ledger did is harmless.
 *
 * The read side answers where a device stands: `versionOf` for the version a view was made
 * against, `changesSince` for what another person (or the vendor) changed since, which the stale
 * view refusal (409 `device_changed`) names.
 *
 * Implemented by the read model (`src/server/read-model/`), which also refreshes from the vendor
 * and pushes every change to the account's browsers.
 */
export interface DeviceCommandsRecorder {
  /**
   * A command the vendor accepted for `deviceId` (domain `submittedRecord`: `received` at the
   * answer's time), or found in the history for a submission whose answer was lost.
   *
   * @returns the device's version after it (one more when the command was not known).
   */
  recordSubmitted(
    account: Account,
    deviceId: string,
    record: StatusRecord,
    options?: RecordOptions,
  ): Promise<DeviceVersion>;

  /**
   * A cancel the vendor accepted. A command not known yet is read from the vendor later (the
   * device is marked for a read).
   *
   * @returns the device's version after it.
   */
  recordCancelled(
    account: Account,
    cancellation: CommandCancellation,
    options?: RecordOptions,
  ): Promise<DeviceVersion>;

  /**
   * A batch the vendor accepted: its answer names no device command, so each device is read
   * soon to find it (docs/decisions/006, section 5), and its ledger entry completed from what
   * the reads find.
   */
  recordBatchSent(account: Account, batch: SentBatch, options?: RecordOptions): Promise<void>;

  /** A batch cancel the vendor answered: the commands its results say it cancelled. */
  recordBatchCancelled(
    account: Account,
    answer: BatchCancelResponse,
    options?: RecordOptions,
  ): Promise<void>;

  /**
   * A site bound (or bound again): its devices are read once, soon, for their current 30-day
   * history (the backfill), and kept fresh from then on.
   */
  recordSiteBound(account: Account, site: BoundSite): Promise<void>;

  /**
   * A site unbound: its devices are read no more (the vendor answers 404 for them now), and
   * everyone else of the account is told who unbound it (`options.madeBy`) and how many of its
   * commands were left waiting or executing on the vendor.
   */
  recordSiteUnbound(account: Account, siteId: string, options?: RecordOptions): Promise<void>;

  /** The device's version now: 0 when nothing is known of it. */
  versionOf(account: Account, deviceId: string): Promise<DeviceVersion>;

  /**
   * What changed on the device after `sinceVersion`, oldest first; with `exceptBy`, the changes
   * that person made are left out (their own changes never make their view stale).
   */
  changesSince(
    account: Account,
    deviceId: string,
    sinceVersion: DeviceVersion,
    options?: { exceptBy?: Person | undefined },
  ): Promise<DeviceCommandChanges>;
}

/** Who made a recorded change, when it went through powerdeck. */
export interface RecordOptions {
  madeBy?: Actor | undefined;
}

/** Who made a change, in words: their display name, else the name they typed. */
export function madeByName(actor: Actor | undefined): string | undefined {
  if (!actor) return undefined;
  return actor.name ?? (actor.person.kind === 'named' ? actor.person.name : undefined);
}

/** A site the vendor bound, with the devices it answered. */
export interface BoundSite {
  siteId: string;
  deviceIds: readonly string[];
}

/** A batch the vendor accepted, as the ledger recorded it. */
export interface SentBatch {
  /** Its ledger entry, which the reads complete with the device commands they find. */
  ledgerEntryId: number;
  /** The vendor's batch ID; absent for a batch found in the histories after its answer was lost. */
  batchCommandId?: string | undefined;
  deviceIds: readonly string[];
  command: DeviceCommand;
  /** When the vendor answered, on its clock (the batch's commands were received then). */
  answeredAt: string;
}
