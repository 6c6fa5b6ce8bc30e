import type { RefreshSettings } from '../../domain/refresh-policy.ts';
import type { DeviceCommandsRecorder } from '../ledger/device-commands-recorder.ts';
import type { ReadModelStore } from './read-model-store.ts';
import { ReadModelAnswers } from './read-model-answers.ts';
import { ReadModelCore, type ReadModelChange, type ReadModelOptions } from './read-model-core.ts';
import { ReadModelRecording } from './read-model-recording.ts';
import { ReadModelRefresh } from './read-model-refresh.ts';
import { ReadModelSites } from './read-model-sites.ts';

export type { ReadModelChange, ReadModelOptions } from './read-model-core.ts';
export type { ReadOutcome } from './read-model-refresh.ts';

/**
 * The read model of device commands (docs/decisions/007-device-call-budget.md, sections 3 to 5;
 * docs/architecture.md, Read model), in the BFF's database: the ledger records into it what the
 * vendor accepted (the {@link DeviceCommandsRecorder} seam), the refresher's reads of device
 * histories bring what the vendor did since, and every browser read is answered from it. Each
 * change is one transaction per device, holding the device's state row, that ends by publishing
 * `deviceCommandsChanged` with the device's version, so every open browser of the account
 * updates; notifications of what the reads learnt (a device's cancellation, a batch's failed
 * devices) go in the same transaction.
 *
 * This is the face the rest of the BFF imports; each method is answered by one of its parts,
 * which share how a device changes (`read-model-core.ts`):
 * - what the vendor accepted, recorded by the ledger: `read-model-recording.ts`;
 * - the sites bound to the account (binds, unbinds, the vendor's site list): `read-model-sites.ts`;
 * - what browsers read: `read-model-answers.ts`;
 * - what the refresher reads under and what its reads bring: `read-model-refresh.ts`.
 */
export class ReadModel implements DeviceCommandsRecorder {
  readonly store: ReadModelStore;
  readonly #core: ReadModelCore;
  readonly #recording: ReadModelRecording;
  readonly #sites: ReadModelSites;
  readonly #answers: ReadModelAnswers;
  readonly #refresh: ReadModelRefresh;

  /**
   * @param options.now the upstream's clock, epoch ms: reads are planned on it.
   * @param options.box seals the secrets the refresher reads under; without it nothing is read.
   */
  constructor(options: ReadModelOptions) {
    this.#core = new ReadModelCore(options);
    this.store = this.#core.store;
    this.#recording = new ReadModelRecording(this.#core);
    this.#sites = new ReadModelSites(this.#core);
    this.#answers = new ReadModelAnswers(this.#core);
    this.#refresh = new ReadModelRefresh(this.#core);
  }

  get settings(): RefreshSettings {
    return this.#core.settings;
  }

  /** Woken when a device became due sooner (the refresher's `wake`). */
  get onDue(): (() => void) | undefined {
    return this.#core.onDue;
  }

  set onDue(wake: (() => void) | undefined) {
    this.#core.onDue = wake;
  }

  /** Calls `listener` after each change commits; a failing listener is logged, never thrown. */
  onChange(listener: (change: ReadModelChange) => Promise<void>): void {
    this.#core.listeners.push(listener);
  }

  // --- What the vendor accepted (read-model-recording.ts) ------------------------------------

  recordSubmitted(...args: Parameters<ReadModelRecording['recordSubmitted']>) {
    return this.#recording.recordSubmitted(...args);
  }

  recordCancelled(...args: Parameters<ReadModelRecording['recordCancelled']>) {
    return this.#recording.recordCancelled(...args);
  }

  recordBatchSent(...args: Parameters<ReadModelRecording['recordBatchSent']>) {
    return this.#recording.recordBatchSent(...args);
  }

  recordBatchCancelled(...args: Parameters<ReadModelRecording['recordBatchCancelled']>) {
    return this.#recording.recordBatchCancelled(...args);
  }

  versionOf(...args: Parameters<ReadModelRecording['versionOf']>) {
    return this.#recording.versionOf(...args);
  }

  changesSince(...args: Parameters<ReadModelRecording['changesSince']>) {
    return this.#recording.changesSince(...args);
  }

  // --- The sites bound to the account (read-model-sites.ts) -----------------------------------

  recordSiteBound(...args: Parameters<ReadModelSites['recordSiteBound']>) {
    return this.#sites.recordSiteBound(...args);
  }

  /** See {@link ReadModelSites.recordSiteUnbound}: its devices are read and answered no more. */
  recordSiteUnbound(...args: Parameters<ReadModelSites['recordSiteUnbound']>) {
    return this.#sites.recordSiteUnbound(...args);
  }

  /** See {@link ReadModelSites.readSites}: reads the account's site list and applies it. */
  readSites(...args: Parameters<ReadModelSites['readSites']>) {
    return this.#sites.readSites(...args);
  }

  /** A device of a bound site the read model did not know yet (its site just checked). */
  adoptDevice(...args: Parameters<ReadModelSites['adoptDevice']>) {
    return this.#sites.adoptDevice(...args);
  }

  // --- What browsers read (read-model-answers.ts) ---------------------------------------------

  /** See {@link ReadModelAnswers.history}: a device's commands whose window meets a range. */
  history(...args: Parameters<ReadModelAnswers['history']>) {
    return this.#answers.history(...args);
  }

  /** See {@link ReadModelAnswers.status}: one command's record, with where its device stands. */
  status(...args: Parameters<ReadModelAnswers['status']>) {
    return this.#answers.status(...args);
  }

  /** See {@link ReadModelAnswers.isBound}: whether the device is on a site bound to the account. */
  isBound(...args: Parameters<ReadModelAnswers['isBound']>) {
    return this.#answers.isBound(...args);
  }

  /** Where a device stands; undefined when the read model has never heard of it. */
  stateOf(...args: Parameters<ReadModelAnswers['stateOf']>) {
    return this.#answers.stateOf(...args);
  }

  /** Which of `deviceIds` are of a site the account unbound: the read model reads them no more. */
  unboundOf(...args: Parameters<ReadModelAnswers['unboundOf']>) {
    return this.#answers.unboundOf(...args);
  }

  /** Records of the account by device and command ID (key `deviceId commandId`). */
  commands(...args: Parameters<ReadModelAnswers['commands']>) {
    return this.#answers.commands(...args);
  }

  /** The controls each device of the account turned out not to support. */
  unsupportedControls(...args: Parameters<ReadModelAnswers['unsupportedControls']>) {
    return this.#answers.unsupportedControls(...args);
  }

  // --- What the refresher reads under and what its reads bring (read-model-refresh.ts) -------

  /** See {@link ReadModelRefresh.rememberCaller}: keeps the caller's secret, sealed. */
  rememberCaller(...args: Parameters<ReadModelRefresh['rememberCaller']>) {
    return this.#refresh.rememberCaller(...args);
  }

  /** The sign-in the refresher reads an account's devices under, from its sealed secret. */
  callerOf(...args: Parameters<ReadModelRefresh['callerOf']>) {
    return this.#refresh.callerOf(...args);
  }

  /** See {@link ReadModelRefresh.adoptConfirmingBatches}: batches still confirming, read soon. */
  adoptConfirmingBatches() {
    return this.#refresh.adoptConfirmingBatches();
  }

  /** See {@link ReadModelRefresh.applyRead}: applies one read of a device's history. */
  applyRead(...args: Parameters<ReadModelRefresh['applyRead']>) {
    return this.#refresh.applyRead(...args);
  }

  /** See {@link ReadModelRefresh.releaseRead}: ends a read that could not be made or failed. */
  releaseRead(...args: Parameters<ReadModelRefresh['releaseRead']>) {
    return this.#refresh.releaseRead(...args);
  }
}
