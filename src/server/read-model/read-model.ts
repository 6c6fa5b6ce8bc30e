import type { RefreshSettings } from '#domain/refresh-policy.ts';
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
 * The read model of device commands (decision 007, sections 3 to 5; docs/architecture.md, Read
 * model): the ledger records what the vendor accepted, the refresher's reads bring what it did
 * since, and every browser read is answered from it. This face delegates to its parts
 * (`read-model-recording.ts`, `-sites.ts`, `-answers.ts`, `-refresh.ts`).
 */
export class ReadModel implements DeviceCommandsRecorder {
  readonly store: ReadModelStore;
  readonly #core: ReadModelCore;
  readonly #recording: ReadModelRecording;
  readonly #sites: ReadModelSites;
  readonly #answers: ReadModelAnswers;
  readonly #refresh: ReadModelRefresh;

  /** @param options.now the upstream's clock, epoch ms. */
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

  get onDue(): (() => void) | undefined {
    return this.#core.onDue;
  }

  set onDue(wake: (() => void) | undefined) {
    this.#core.onDue = wake;
  }

  /** A failing listener is logged, never thrown. */
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

  recordSiteUnbound(...args: Parameters<ReadModelSites['recordSiteUnbound']>) {
    return this.#sites.recordSiteUnbound(...args);
  }

  readSites(...args: Parameters<ReadModelSites['readSites']>) {
    return this.#sites.readSites(...args);
  }

  adoptDevice(...args: Parameters<ReadModelSites['adoptDevice']>) {
    return this.#sites.adoptDevice(...args);
  }

  // --- What browsers read (read-model-answers.ts) ---------------------------------------------

  history(...args: Parameters<ReadModelAnswers['history']>) {
    return this.#answers.history(...args);
  }

  status(...args: Parameters<ReadModelAnswers['status']>) {
    return this.#answers.status(...args);
  }

  isBound(...args: Parameters<ReadModelAnswers['isBound']>) {
    return this.#answers.isBound(...args);
  }

  stateOf(...args: Parameters<ReadModelAnswers['stateOf']>) {
    return this.#answers.stateOf(...args);
  }

  unboundOf(...args: Parameters<ReadModelAnswers['unboundOf']>) {
    return this.#answers.unboundOf(...args);
  }

  commands(...args: Parameters<ReadModelAnswers['commands']>) {
    return this.#answers.commands(...args);
  }

  unsupportedControls(...args: Parameters<ReadModelAnswers['unsupportedControls']>) {
    return this.#answers.unsupportedControls(...args);
  }

  // --- What the refresher reads under and what its reads bring (read-model-refresh.ts) -------

  rememberCaller(...args: Parameters<ReadModelRefresh['rememberCaller']>) {
    return this.#refresh.rememberCaller(...args);
  }

  forgetCaller(...args: Parameters<ReadModelRefresh['forgetCaller']>) {
    return this.#refresh.forgetCaller(...args);
  }

  callerOf(...args: Parameters<ReadModelRefresh['callerOf']>) {
    return this.#refresh.callerOf(...args);
  }

  adoptConfirmingBatches() {
    return this.#refresh.adoptConfirmingBatches();
  }

  applyRead(...args: Parameters<ReadModelRefresh['applyRead']>) {
    return this.#refresh.applyRead(...args);
  }

  releaseRead(...args: Parameters<ReadModelRefresh['releaseRead']>) {
    return this.#refresh.releaseRead(...args);
  }
}
