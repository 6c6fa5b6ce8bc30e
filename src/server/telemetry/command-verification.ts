import type { FastifyBaseLogger } from 'fastify';
import type { Account, Person } from '#domain/account.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { Device } from '#domain/device.ts';
import {
  DEFAULT_SAMPLING_PERIOD_MS,
  SAMPLING_PERIODS_MS,
  type TelemetrySample,
} from '#domain/telemetry.ts';
import { columnsOfRows, rowsOfColumns, type CommandVerdictRecord } from '#domain/verdict-answer.ts';
import {
  effectiveWindowOf,
  verdictOf,
  verdictSoFar,
  type VerdictAlarm,
  type VerdictCommand,
} from '#domain/verdict.ts';
import {
  deliveredPercentOf,
  EVENT_DELIVERY_THRESHOLD_PERCENT,
  eventVerdictsOf,
} from '#domain/fleet-power.ts';
import type { DeviceCommandVerdict } from '#domain/verdict.ts';
import type { AccountEvents } from '../events/account-events.ts';
import type { Notifications } from '../notifications/notifications.ts';
import { isProblem } from '../http/problem.ts';
import type { ReadModel, ReadModelChange } from '../read-model/read-model.ts';
import type { DeviceTelemetrySettings } from '../upstream/upstream-api.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import type { BudgetedTelemetry } from './budgeted-telemetry.ts';
import {
  runningAnswerOf,
  type PlannedVerdict,
  type VerdictKey,
  type VerdictRow,
  type VerdictStore,
} from './verdict-store.ts';

/**
 * Commands whose window ended longer ago than this when the read model learns them (a newly bound
 * site's past month) are not verified: each would cost a read of the device's budget, beside the
 * read model's own backfill of that site, for a window nobody watched. A batch's commands are
 * found within minutes of the batch, well inside it.
 */
export const VERIFY_HORIZON_MS = 60 * 60_000;
/** How long a device's configuration read for a verdict is used for its next ones, ms. */
export const SETTINGS_KEPT_MS = 24 * 60 * 60_000;
/** A watched running window is read at most this often, upstream-clock ms: a tenth of the budget. */
export const WATCH_READ_EVERY_MS = 5 * 60_000;
/** A failed verification is tried again after 15 s, doubling to this (upstream clock). */
export const MAX_VERIFY_BACKOFF_MS = 10 * 60_000;

export type VerifyOutcome = 'verified' | 'waiting' | 'failed' | 'gone' | 'skipped';

/** What the rules need of a status record (times epoch ms). */
export function verdictCommandOf(record: StatusRecord): VerdictCommand {
  const ms = (value: string | undefined) => (value === undefined ? undefined : Date.parse(value));
  return {
    powerControl: record.powerControl,
    startMs: Date.parse(record.startTime),
    endMs: Date.parse(record.endTime),
    status: record.status,
    cancellationReason: record.cancelReason,
    startedAtMs: ms(record.startedAt),
    endedAtMs: ms(record.completedAt ?? record.cancelledAt),
  };
}

/**
 * When a command is verified: one sampling period after its effective window ends, so the
 * window's last sample is in (docs/verification.md); at once when it was cancelled before it
 * started (no read needed).
 *
 * @returns undefined for a window that ended before `nowMs - VERIFY_HORIZON_MS`.
 */
export function plannedVerdictOf(record: StatusRecord, nowMs: number): PlannedVerdict | undefined {
  const { fromMs, toMs } = effectiveWindowOf(verdictCommandOf(record));
  if (toMs < nowMs - VERIFY_HORIZON_MS) return undefined;
  const dueAtMs = toMs > fromMs ? toMs + DEFAULT_SAMPLING_PERIOD_MS : nowMs;
  return { record, windowStartMs: fromMs, windowEndMs: toMs, dueAtMs };
}

/** The vendor's period nearest the samples' median spacing; undefined with fewer than two. */
export function samplingPeriodOf(samples: readonly TelemetrySample[]): number | undefined {
  const times = samples.map((sample) => sample.atMs).sort((a, b) => a - b);
  const gaps = times.slice(1).map((atMs, i) => atMs - (times[i] as number));
  if (gaps.length === 0) return undefined;
  const median = gaps.sort((a, b) => a - b)[Math.floor(gaps.length / 2)] as number;
  return [...SAMPLING_PERIODS_MS].sort(
    (a, b) => Math.abs(a - median) - Math.abs(b - median),
  )[0] as number;
}

/**
 * Verifies each device command after its window (docs/verification.md; docs/architecture.md,
 * Verification): planned from every change of the read model, then one budgeted `historicalData`
 * read of the device per 500 samples of its effective window, the domain's `verdictOf`, stored
 * beside the ledger, and a `deviceVerdictsChanged` account event.
 */
export class CommandVerification {
  readonly #store: VerdictStore;
  readonly #model: ReadModel;
  readonly #telemetry: BudgetedTelemetry;
  readonly #devices: (caller: UpstreamCaller, deviceIds: string[]) => Promise<Map<string, Device>>;
  readonly #events: AccountEvents | undefined;
  readonly #notifications: Notifications | undefined;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  /** Told after each verdict is stored (tests and the queue's wake-ups). */
  onVerified: ((key: VerdictKey) => void) | undefined;

  /**
   * @param options.devices the devices' ratings, from the site list (no device call).
   * @param options.now the upstream's clock, epoch ms.
   */
  constructor(options: {
    store: VerdictStore;
    model: ReadModel;
    telemetry: BudgetedTelemetry;
    devices: (caller: UpstreamCaller, deviceIds: string[]) => Promise<Map<string, Device>>;
    events?: AccountEvents | undefined;
    /** Told of a command not followed, a device silent in its window, an event under 80%. */
    notifications?: Notifications | undefined;
    now: () => number;
    log: FastifyBaseLogger;
  }) {
    this.#store = options.store;
    this.#model = options.model;
    this.#telemetry = options.telemetry;
    this.#devices = options.devices;
    this.#events = options.events;
    this.#notifications = options.notifications;
    this.#now = options.now;
    this.#log = options.log;
  }

  get store(): VerdictStore {
    return this.#store;
  }

  /** The read model's listener: plans the verification of each command it learnt or changed. */
  async plan(change: ReadModelChange): Promise<void> {
    const nowMs = this.#now();
    const planned = change.records.flatMap((record) => {
      const item = plannedVerdictOf(record, nowMs);
      return item ? [item] : [];
    });
    await this.#store.plan(change.account, planned, nowMs);
  }

  /**
   * An operator watches `deviceId`: its running windows are read at most once every
   * {@link WATCH_READ_EVERY_MS} (docs/verification.md, While a window runs), by the queue as any
   * verification, inside the device's budget. @returns the windows made due sooner.
   */
  watch(account: Account, deviceId: string): Promise<number> {
    return this.#store.watch(account, deviceId, this.#now(), WATCH_READ_EVERY_MS);
  }

  /**
   * The device's running windows with what was read of them so far, each judged so far (domain
   * `verdictSoFar`), newest first. No vendor call but the cached site list for its ratings.
   */
  async runningOf(caller: UpstreamCaller, deviceId: string): Promise<CommandVerdictRecord[]> {
    const account = { region: caller.region, clientId: caller.clientId } as Account;
    const nowMs = this.#now();
    const rows = await this.#store.runningOf(account, deviceId, nowMs);
    if (rows.length === 0) return [];
    const device = await this.#ratingsOf(caller, deviceId);
    const settings = await this.#store.settingsOf(rows[0] as VerdictKey, nowMs - SETTINGS_KEPT_MS);
    return rows.flatMap((row) => {
      if (!row.samples || row.readToMs === undefined) return [];
      const command = verdictCommandOf(row.record);
      const soFar = verdictSoFar(
        {
          command,
          samples: rowsOfColumns(row.samples),
          samplingPeriodMs:
            row.samplingPeriodMs ??
            samplingPeriodOf(rowsOfColumns(row.samples)) ??
            DEFAULT_SAMPLING_PERIOD_MS,
          device,
          cutoffs: settings?.cutoffs,
          siteLimits: settings?.siteLimits,
        },
        row.readToMs,
      );
      return [runningAnswerOf(row, soFar, nowMs)];
    });
  }

  /**
   * Verifies one claimed command:  /**
   * Verifies one claimed command: reads what is missing of its window (a read slot per call; no
   * slot, it waits for the device's next one with what was read kept), then its verdict.
   */
  async verify(key: VerdictKey, secretCiphertext: string): Promise<VerifyOutcome> {
    const row = await this.#store.find(key);
    if (!row) return 'gone';
    const account = { region: key.region, clientId: key.clientId } as Account;
    const caller = this.#model.callerOf(account, secretCiphertext);
    if (!caller) {
      await this.#store.later(key, this.#now() + 5 * 60_000, false);
      return 'skipped';
    }
    try {
      return await this.#verify(key, row, account, caller);
    } catch (error) {
      if (isProblem(error, 'unknown_or_unbound')) {
        await this.#store.drop(key);
        return 'gone';
      }
      const backoffMs = Math.min(MAX_VERIFY_BACKOFF_MS, 15_000 * 2 ** row.failures);
      this.#log.warn(
        { err: error, deviceId: key.deviceId, commandId: key.commandId, retryInMs: backoffMs },
        'verification: reading the telemetry of a command window failed; it is tried again later',
      );
      await this.#store.later(key, this.#now() + backoffMs, true);
      return 'failed';
    }
  }

  async #verify(
    key: VerdictKey,
    row: VerdictRow,
    account: Account,
    caller: UpstreamCaller,
  ): Promise<VerifyOutcome> {
    const known = await this.#model.store.commandsByIds(
      this.#model.store.db,
      account,
      key.deviceId,
      [key.commandId],
    );
    const record = known.get(key.commandId)?.record ?? row.record;
    const command = verdictCommandOf(record);
    const { fromMs, toMs } = effectiveWindowOf(command);
    const nowMs = this.#now();
    let settings = await this.#store.settingsOf(key, nowMs - SETTINGS_KEPT_MS);
    let periodMs = row.samplingPeriodMs ?? settings?.samplingPeriodMs ?? DEFAULT_SAMPLING_PERIOD_MS;
    if (toMs > fromMs && nowMs < toMs + periodMs) {
      // Due before its end: an operator watches it (VerdictStore.watch), or the read model learnt
      // a later end. A running window is read to its last period but one (the vendor's lag).
      const readEndMs = Math.floor(nowMs / periodMs) * periodMs - periodMs;
      if (readEndMs > fromMs) {
        const read = await this.#readWindow(caller, key, row, fromMs, readEndMs, periodMs);
        const dueAtMs = Math.min(read.nextFreeAtMs ?? Infinity, toMs + periodMs);
        await this.#store.saveProgress(key, {
          ...read,
          samples: columnsOfRows(read.samples),
          dueAtMs,
        });
        if (read.calls > 0) await this.#announce(account, key.deviceId);
      } else await this.#store.later(key, toMs + periodMs, false);
      return 'waiting';
    }
    const read = await this.#readWindow(caller, key, row, fromMs, toMs, periodMs);
    const { samples, readToMs } = read;
    let { calls } = read;
    if (read.nextFreeAtMs !== undefined) {
      await this.#store.saveProgress(key, {
        samples: columnsOfRows(samples),
        readToMs,
        calls,
        dueAtMs: read.nextFreeAtMs,
      });
      return 'waiting';
    }
    periodMs = samplingPeriodOf(samples) ?? periodMs;
    let activeAlarms: VerdictAlarm[] = [];
    if (command.status === 'cancelled' && command.cancellationReason === 'deviceFault') {
      const endedAtMs = command.endedAtMs ?? toMs;
      const alarms = await this.#telemetry.alarms(caller, {
        deviceId: key.deviceId,
        startMs: Math.min(fromMs, endedAtMs) - 60 * 60_000,
        endMs: endedAtMs + periodMs,
      });
      if ('nextFreeAtMs' in alarms) {
        await this.#store.saveProgress(key, {
          samples: columnsOfRows(samples),
          readToMs: Math.max(readToMs, toMs),
          calls: calls + alarms.calls,
          dueAtMs: alarms.nextFreeAtMs,
        });
        return 'waiting';
      }
      calls += alarms.calls;
      activeAlarms = alarms.alarms
        .filter(
          (alarm) =>
            (alarm.startMs === undefined || alarm.startMs <= endedAtMs + periodMs) &&
            (alarm.endMs === undefined || alarm.endMs >= endedAtMs),
        )
        .map(({ alarmCode, alarmName }) => ({ alarmCode, alarmName }));
    }
    const device = await this.#ratingsOf(caller, key.deviceId);
    const judge = (known: DeviceTelemetrySettings | undefined) =>
      verdictOf({
        command,
        samples,
        samplingPeriodMs: periodMs,
        device,
        cutoffs: known?.cutoffs,
        siteLimits: known?.siteLimits,
        activeAlarms,
      });
    let verdict = judge(settings);
    // A limit guessed from the samples alone is checked against the device's configuration: one
    // more call, only for the devices whose verdict turns on it.
    if (
      !settings &&
      (verdict.verdict === 'limitedBySoc' || verdict.verdict === 'limitedBySiteLimit')
    ) {
      const read = await this.#telemetry.configuration(caller, key.deviceId);
      if ('nextFreeAtMs' in read) {
        await this.#store.saveProgress(key, {
          samples: columnsOfRows(samples),
          readToMs: Math.max(readToMs, toMs),
          calls,
          dueAtMs: read.nextFreeAtMs,
        });
        return 'waiting';
      }
      calls += 1;
      settings = read.settings;
      await this.#store.saveSettings(key, settings, this.#now());
      verdict = judge(settings);
    }
    const written = await this.#store.saveVerdict(key, {
      record,
      windowStartMs: fromMs,
      windowEndMs: toMs,
      verdict,
      samplingPeriodMs: periodMs,
      samples: columnsOfRows(samples.filter((sample) => sample.atMs > fromMs)),
      readToMs: Math.max(readToMs, toMs),
      calls,
      computedAtMs: this.#now(),
    });
    // Forgotten meanwhile: nothing to announce or notify of.
    if (!written) return 'gone';
    await this.#announce(account, key.deviceId);
    await this.#tell(account, record, verdict, known.get(key.commandId)?.madeBy).catch(
      (error: unknown) =>
        this.#log.warn({ err: error }, 'verification: the verdict was kept but not notified'),
    );
    this.onVerified?.(key);
    return 'verified';
  }

  /**
   * Notifies (docs/verification.md, Notifications) a command not followed or a device silent in
   * its window, and, once the last device of a batch has its verdict, a batch that gave less than
   * {@link EVENT_DELIVERY_THRESHOLD_PERCENT} of its commanded energy: told once, whichever
   * instance judges its last device.
   */
  async #tell(
    account: Account,
    record: StatusRecord,
    verdict: DeviceCommandVerdict,
    madeBy: Person | undefined,
  ): Promise<void> {
    const notifications = this.#notifications;
    if (!notifications) return;
    const state = await this.#model.store.stateOf(account, record.deviceId);
    const place = {
      deviceId: record.deviceId,
      commandId: record.id,
      ...(state?.siteId ? { siteId: state.siteId } : {}),
      startTime: record.startTime,
      endTime: record.endTime,
    };
    if (verdict.verdict === 'notFollowing') {
      const deliveredPercent = deliveredPercentOf(
        verdict.commandedEnergyWh ?? 0,
        verdict.deliveredEnergyWh ?? 0,
      );
      await notifications.notify({
        account,
        kind: 'commandNotFollowed',
        ...place,
        ...(deliveredPercent === undefined
          ? {}
          : { deliveredPercent: Math.min(1000, deliveredPercent) }),
        madeBy,
      });
    } else if (verdict.verdict === 'noData') {
      await notifications.notify({
        account,
        kind: 'deviceSilentInWindow',
        ...place,
        measuredPercent: Math.round(verdict.coverage * 100),
        madeBy,
      });
    }
    const batchCommandId = record.batchCommandId;
    if (!batchCommandId || !madeBy) return;
    // Only the batch's last verdict reads them all.
    if ((await this.#store.pendingOfBatch(account, batchCommandId)) > 0) return;
    const { knownCommands, records } = await this.#store.verdictsOfBatches(account, [
      batchCommandId,
    ]);
    const event = eventVerdictsOf(records, knownCommands);
    if (event.pending > 0 || event.deliveredPercent === undefined) return;
    if (event.deliveredPercent >= EVENT_DELIVERY_THRESHOLD_PERCENT) return;
    const store = this.#model.store;
    await store.transaction(async (tx) => {
      if (!(await store.noticeOnce(tx, `eventUnderDelivered ${batchCommandId}`, this.#now())))
        return;
      await notifications.notify(
        {
          account,
          kind: 'eventUnderDelivered',
          batchCommandId,
          deliveredPercent: Math.min(1000, event.deliveredPercent ?? 0),
          thresholdPercent: EVENT_DELIVERY_THRESHOLD_PERCENT,
          totalDevices: Math.max(1, event.devices),
          ...(state?.siteId ? { siteId: state.siteId } : {}),
          startTime: record.startTime,
          endTime: record.endTime,
          madeBy,
        },
        { tx },
      );
    });
  }

  /** Unknown ratings clip nothing: the command's own target is judged. */
  /**
   * What is read of `[fromMs - periodMs, endMs]` after what the row kept (the sample just before
   * the window tells whether the state of charge had stopped moving), oldest first, one per
   * instant; `nextFreeAtMs` when the budget stopped the read before `endMs`.
   */
  async #readWindow(
    caller: UpstreamCaller,
    key: VerdictKey,
    row: VerdictRow,
    fromMs: number,
    endMs: number,
    periodMs: number,
  ): Promise<{
    samples: TelemetrySample[];
    readToMs: number;
    calls: number;
    nextFreeAtMs?: number;
  }> {
    const readFromMs = fromMs - periodMs;
    let samples = row.samples && row.readToMs !== undefined ? rowsOfColumns(row.samples) : [];
    const readToMs =
      row.readToMs !== undefined && row.readToMs >= readFromMs ? row.readToMs : readFromMs;
    if (readToMs === readFromMs) samples = [];
    if (endMs <= fromMs || readToMs >= endMs)
      return { samples: sortedIn(samples, readFromMs, endMs), readToMs, calls: 0 };
    const read = await this.#telemetry.history(caller, {
      deviceId: key.deviceId,
      fromMs: readToMs,
      endMs,
      samplingPeriodMs: periodMs,
    });
    samples = sortedIn([...samples, ...read.samples], readFromMs, endMs);
    return {
      samples,
      readToMs: read.readToMs,
      calls: read.calls,
      ...(read.nextFreeAtMs === undefined ? {} : { nextFreeAtMs: read.nextFreeAtMs }),
    };
  }

  async #announce(account: Account, deviceId: string): Promise<void> {
    await this.#events
      ?.publish(account, { type: 'deviceVerdictsChanged', data: { deviceIds: [deviceId] } })
      .catch((error: unknown) =>
        this.#log.warn({ err: error }, 'verification: the verdict was kept but not announced'),
      );
  }

  async #ratingsOf(
    caller: UpstreamCaller,
    deviceId: string,
  ): Promise<{ maxChargePowerW: number; maxDischargePowerW: number }> {
    const unknown = { maxChargePowerW: Infinity, maxDischargePowerW: Infinity };
    try {
      const range = (await this.#devices(caller, [deviceId])).get(deviceId)?.capabilities
        .targetBatteryPowerW;
      if (!range) return unknown;
      return {
        maxChargePowerW: range.min < 0 ? -range.min : Infinity,
        maxDischargePowerW: range.max > 0 ? range.max : Infinity,
      };
    } catch (error) {
      this.#log.warn({ err: error, deviceId }, 'verification: the device ratings were not read');
      return unknown;
    }
  }
}

/** Oldest first, one per instant, stamped within `[fromMs, toMs]` (the one at `fromMs` ends the period before). */
function sortedIn(samples: readonly TelemetrySample[], fromMs: number, toMs: number) {
  const byTime = new Map<number, TelemetrySample>();
  for (const sample of samples)
    if (sample.atMs >= fromMs && sample.atMs <= toMs) byTime.set(sample.atMs, sample);
  return [...byTime.values()].sort((a, b) => a.atMs - b.atMs);
}
