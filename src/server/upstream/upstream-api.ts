import type { z } from 'zod';
import type { BatchCancelResponse, BatchRequest } from '#domain/batch.ts';
import type {
  CommandCancellation,
  DeviceCommand,
  StatusRecord,
  SubmissionResponse,
} from '#domain/command.ts';
import type { Site, SiteList } from '#domain/device.ts';
import type { HistoryQuery } from '#domain/history.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import type { Region } from '#domain/token.ts';
import { ProblemError } from '../http/problem.ts';
import { readOkAnswer, settleCall, type CallResult } from './upstream-answers.ts';
import type { UpstreamCaller, UpstreamRegion } from './upstream-caller.ts';
import type { UpstreamClient, UpstreamCall } from './upstream-client.ts';
import type { UpstreamHttp } from './upstream-http.ts';
import {
  TokenEndpoint,
  type ClientCredentials,
  type IssuedToken,
  type TokenLog,
  type TokenPurpose,
} from './token-endpoint.ts';
import { refusalLookups, type DeviceLookup, type KnownCommandSource } from './refusal-lookups.ts';
import type { StoredSiteZone } from '../db/site-zones.ts';
import { toSite } from './vendor-mapping.ts';
import type { VendorDevice } from './vendor-schemas.ts';
import type { DeviceAlarm, DeviceTelemetrySettings } from './vendor-telemetry.ts';
import {
  MAX_PAGE_BYTES,
  PAGE_SIZE,
  VENDOR_OPERATIONS as VENDOR,
  type ChangeOperation,
  type CommandRef,
  type DeviceRange,
  type ListOperation,
  type ReadOperation,
} from './vendor-operations.ts';

export { PAGE_SIZE, type CommandRef, type DeviceRange } from './vendor-operations.ts';
export type { DeviceAlarm, DeviceTelemetrySettings } from './vendor-telemetry.ts';
export type { DeviceLookup, KnownCommandSource } from './refusal-lookups.ts';

/** The vendor's most devices of one `latestData/query`. */
export const LATEST_DATA_DEVICES = 100;

/** 100,000 items, far above any fleet. */
const MAX_PAGES = 200;

/** `retry: false` sends it once. */
interface CallOptions {
  retry?: boolean | undefined;
  requestId?: string | undefined;
}

interface PageOptions extends CallOptions {
  page: number;
  before: number;
}

/** db/site-zones.ts. */
export interface SiteZoneSource {
  zones(region: Region, clientId: string): Promise<ReadonlyMap<string, StoredSiteZone>>;
}

/** By device ID; the read model learns them from commands that ended `notSupported`. */
export type UnsupportedControlSource = (
  caller: UpstreamCaller,
) => Promise<ReadonlyMap<string, ReadonlySet<string>>>;

/**
 * The vendor's API behind one adapter (decision 006, section 2): one typed method per operation of
 * vendor-operations.ts, refusals worded as product problems, lists read to their last page.
 * State-changing calls never throw: they return a {@link CallResult} for the ledger. Device
 * control calls are never retried (each try spends a call of the device's budget, decision 007).
 */
export class UpstreamApi {
  readonly #client: UpstreamClient;
  readonly #tokenEndpoint: TokenEndpoint;
  readonly #zones: SiteZoneSource | undefined;
  readonly #unsupported: UnsupportedControlSource | undefined;
  readonly #known: KnownCommandSource | undefined;
  readonly #now: () => number;
  #devices: DeviceLookup | undefined;

  /**
   * @param options.zones none: every site inferred or offset.
   * @param options.knownCommands none: an overlap refusal names no command.
   */
  constructor(options: {
    client: UpstreamClient;
    http: UpstreamHttp;
    upstreams: Record<Region, UpstreamRegion>;
    log: TokenLog;
    zones?: SiteZoneSource | undefined;
    unsupportedControls?: UnsupportedControlSource | undefined;
    knownCommands?: KnownCommandSource | undefined;
    now?: () => number;
  }) {
    this.#client = options.client;
    this.#tokenEndpoint = new TokenEndpoint(options);
    this.#zones = options.zones;
    this.#unsupported = options.unsupportedControls;
    this.#known = options.knownCommands;
    this.#now = options.now ?? Date.now;
  }

  set deviceLookup(lookup: DeviceLookup) {
    this.#devices = lookup;
  }

  /**
   * @throws InvalidCredentialsError when the client is refused; ProblemError
   *   `token_endpoint_error`, `token_endpoint_unreachable`, `token_endpoint_timeout` or
   *   `token_unreadable` otherwise.
   */
  token(
    region: Region,
    credentials: ClientCredentials,
    purpose: TokenPurpose,
  ): Promise<IssuedToken> {
    return this.#tokenEndpoint.request(region, credentials, purpose);
  }

  /**
   * `GET /sites` to the last page, each site with its clock; devices the vendor left out are read
   * from `GET /devices`.
   *
   * @throws ProblemError: the refusal, a transport problem, 502 `upstream_error`.
   */
  async sites(caller: UpstreamCaller, options: CallOptions = {}): Promise<SiteList> {
    const [vendorSites, stored, unsupported] = await Promise.all([
      this.#allPages(caller, VENDOR.sites, undefined, options),
      this.#storedZones(caller),
      this.#unsupportedControls(caller),
    ]);
    const devicesBySite = vendorSites.some((site) => !site.devices)
      ? groupBySite(await this.#allPages(caller, VENDOR.devices, undefined, options))
      : new Map<string, VendorDevice[]>();
    const nowMs = this.#now();
    return {
      sites: vendorSites.map((site) =>
        withoutUnsupported(
          toSite(site, {
            stored: stored.get(site.id),
            nowMs,
            devices: devicesBySite.get(site.id) ?? [],
          }),
          unsupported,
        ),
      ),
    };
  }

  /** @throws ProblemError 404 `unknown_or_unbound`, other refusals, transport problems. */
  async site(caller: UpstreamCaller, siteId: string, requestId?: string): Promise<Site> {
    const [vendorSite, stored, unsupported] = await Promise.all([
      this.#call(caller, VENDOR.site, siteId, { requestId }),
      this.#storedZones(caller),
      this.#unsupportedControls(caller),
    ]);
    const devices = vendorSite.devices
      ? undefined
      : (await this.#allPages(caller, VENDOR.devices, undefined, {})).filter(
          (device) => device.siteId === siteId,
        );
    return withoutUnsupported(
      toSite(vendorSite, {
        stored: stored.get(vendorSite.id),
        nowMs: this.#now(),
        ...(devices ? { devices } : {}),
      }),
      unsupported,
    );
  }

  /** A site already in the list is answered 200 with nothing sent; 409 is `site_bound_elsewhere`. */
  async bind(
    caller: UpstreamCaller,
    siteId: string,
    requestId?: string,
  ): Promise<CallResult<Site>> {
    try {
      const listed = (await this.sites(caller, { requestId })).sites.find(
        (site) => site.siteId === siteId,
      );
      if (listed) return { kind: 'accepted', status: 200, value: listed };
    } catch (error) {
      if (error instanceof ProblemError) return { kind: 'refused', problem: error };
      throw error;
    }
    const bound = await this.#call(caller, VENDOR.bind, siteId, { requestId });
    if (bound.kind !== 'accepted') return bound;
    try {
      return { kind: 'accepted', status: 201, value: await this.site(caller, siteId) };
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return {
        kind: 'accepted',
        status: 201,
        value: { siteId, name: siteId, timeZone: 'UTC', clock: { source: 'offset' }, devices: [] },
      };
    }
  }

  unbind(
    caller: UpstreamCaller,
    siteId: string,
    requestId?: string,
  ): Promise<CallResult<undefined>> {
    return this.#call(caller, VENDOR.unbind, siteId, { requestId });
  }

  submit(
    caller: UpstreamCaller,
    deviceId: string,
    command: DeviceCommand,
    requestId?: string,
  ): Promise<CallResult<SubmissionResponse>> {
    return this.#call(caller, VENDOR.submit, { deviceId, command }, { requestId });
  }

  /**
   * Sent once, without a request ID: one answer may serve several browsers (status sharing).
   *
   * @throws ProblemError: the refusal (404 `unknown_or_unbound`...), 502 for an unreadable record.
   */
  status(caller: UpstreamCaller, ref: CommandRef): Promise<StatusRecord> {
    return this.#call(caller, VENDOR.status, ref);
  }

  /** Sent once; 409 is `not_cancellable`. */
  cancel(
    caller: UpstreamCaller,
    ref: CommandRef,
    requestId?: string,
  ): Promise<CallResult<CommandCancellation>> {
    return this.#call(caller, VENDOR.cancel, ref, { requestId });
  }

  /** At most 30 days, every page read. @throws ProblemError: the refusal, or 502 `upstream_error`. */
  history(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
    requestId?: string,
  ): Promise<StatusRecord[]> {
    return this.#allPages(caller, VENDOR.history, { deviceId, query }, { requestId });
  }

  /**
   * One page, sent once: the read model takes a slot of the device's budget per page.
   *
   * @throws ProblemError: the refusal (429 `device_rate_limited`), transport, 502 `upstream_error`.
   */
  async historyPage(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
    page: number,
  ): Promise<{ commands: StatusRecord[]; more: boolean }> {
    const params = { deviceId, query };
    const { items, more } = await this.#call(caller, VENDOR.history, params, {
      page,
      before: (page - 1) * PAGE_SIZE,
    });
    return { commands: items.map((command) => VENDOR.history.maps(command, params)), more };
  }

  /**
   * `GET /devices/{deviceId}/latestData`, sent once (a call of the device's budget).
   *
   * @returns undefined when the device has no usable sample.
   * @throws ProblemError: the refusal (404 `unknown_or_unbound`, 429), transport, 502.
   */
  latestData(caller: UpstreamCaller, deviceId: string): Promise<TelemetrySample | undefined> {
    return this.#call(caller, VENDOR.latestData, deviceId);
  }

  /**
   * `POST /devices/latestData/query`, sent once; counted once per device by the vendor.
   *
   * @param deviceIds 1 to 100 (the vendor's limit).
   * @returns the latest usable sample by device ID; a device the vendor left out is absent.
   * @throws RangeError outside 1 to 100 devices; ProblemError as {@link UpstreamApi.latestData}.
   */
  latestDataOf(
    caller: UpstreamCaller,
    deviceIds: readonly string[],
  ): Promise<Map<string, TelemetrySample>> {
    if (deviceIds.length === 0 || deviceIds.length > LATEST_DATA_DEVICES)
      throw new RangeError(`latestData/query takes 1 to ${LATEST_DATA_DEVICES} devices`);
    return this.#call(caller, VENDOR.latestDataQuery, deviceIds);
  }

  /**
   * One page (500 samples, 8 h 20 min at 60 s) of `GET /devices/{deviceId}/historicalData`, sent
   * once: the caller takes a slot of the device's budget per page. Samples without their power,
   * state of charge or time are left out.
   *
   * @param range at most 30 days.
   * @throws ProblemError: the refusal (429 `device_rate_limited`), transport, 502 `upstream_error`.
   */
  async telemetryPage(
    caller: UpstreamCaller,
    range: DeviceRange,
    page: number,
  ): Promise<{ samples: TelemetrySample[]; more: boolean }> {
    const { items, more } = await this.#call(caller, VENDOR.telemetryHistory, range, {
      page,
      before: (page - 1) * PAGE_SIZE,
    });
    const samples = items.flatMap((item) => {
      const sample = VENDOR.telemetryHistory.maps(item, range);
      return sample ? [sample] : [];
    });
    return { samples, more };
  }

  /** `GET /devices/{deviceId}/configuration`, sent once. @throws ProblemError as latestData. */
  configuration(caller: UpstreamCaller, deviceId: string): Promise<DeviceTelemetrySettings> {
    return this.#call(caller, VENDOR.configuration, deviceId);
  }

  /**
   * One page of `GET /devices/{deviceId}/alarms` (faults, alarms and notices), sent once.
   *
   * @param range at most 30 days.
   * @throws ProblemError as {@link UpstreamApi.telemetryPage}.
   */
  async alarmsPage(
    caller: UpstreamCaller,
    range: DeviceRange,
    page: number,
  ): Promise<{ alarms: DeviceAlarm[]; more: boolean }> {
    const { items, more } = await this.#call(caller, VENDOR.alarms, range, {
      page,
      before: (page - 1) * PAGE_SIZE,
    });
    const alarms = items.flatMap((item) => {
      const alarm = VENDOR.alarms.maps(item, range);
      return alarm ? [alarm] : [];
    });
    return { alarms, more };
  }

  /** The answer names no device command: the ledger finds them in the histories. */
  batch(
    caller: UpstreamCaller,
    request: BatchRequest,
    requestId?: string,
  ): Promise<CallResult<{ batchCommandId: string; timestamp: string }>> {
    return this.#call(caller, VENDOR.batch, request, { requestId });
  }

  /** Sent once; 409 is `batch_not_cancellable`. */
  batchCancel(
    caller: UpstreamCaller,
    batchCommandId: string,
    requestId?: string,
  ): Promise<CallResult<BatchCancelResponse>> {
    return this.#call(caller, VENDOR.batchCancel, batchCommandId, { requestId });
  }

  /** Until a page comes back short or empty, or `total` items are in (docs/upstream.md, Paging). */
  async #allPages<P, S extends z.ZodType, I, T>(
    caller: UpstreamCaller,
    operation: ListOperation<P, S, I, T>,
    params: P,
    options: CallOptions,
  ): Promise<T[]> {
    const items: I[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.#call(caller, operation, params, {
        retry: options.retry,
        requestId: page === 1 ? options.requestId : undefined,
        page,
        before: items.length,
      });
      items.push(...answer.items);
      if (!answer.more) break;
    }
    return items.map((item) => operation.maps(item, params));
  }

  #call<P, S extends z.ZodType, T>(
    caller: UpstreamCaller,
    operation: ReadOperation<P, S, T>,
    params: P,
    options?: CallOptions,
  ): Promise<T>;
  #call<P, S extends z.ZodType, I, T>(
    caller: UpstreamCaller,
    operation: ListOperation<P, S, I, T>,
    params: P,
    options: PageOptions,
  ): Promise<{ items: I[]; more: boolean }>;
  #call<P, S extends z.ZodType, T>(
    caller: UpstreamCaller,
    operation: ChangeOperation<P, S, T>,
    params: P,
    options?: CallOptions,
  ): Promise<CallResult<T>>;
  async #call<P, S extends z.ZodType>(
    caller: UpstreamCaller,
    operation:
      | ReadOperation<P, S, unknown>
      | ListOperation<P, S, unknown, unknown>
      | ChangeOperation<P, S, unknown>,
    params: P,
    options: CallOptions & Partial<PageOptions> = {},
  ): Promise<unknown> {
    const { page = 1, before = 0, requestId } = options;
    let query: URLSearchParams | undefined;
    if (operation.kind === 'list') {
      query = new URLSearchParams(operation.query(params));
      query.set('page', String(page));
      query.set('size', String(PAGE_SIZE));
    }
    const call: UpstreamCall = {
      method: operation.method,
      path: operation.path(params),
      ...(query ? { query } : {}),
      ...(operation.kind !== 'list' && operation.body ? { body: operation.body(params) } : {}),
      ...(requestId ? { requestId } : {}),
      ...(operation.once || options.retry === false ? { retry: false } : {}),
    };
    if (operation.kind === 'change') {
      const { refine } = operation;
      return settleCall(
        () => this.#client.send(caller, call),
        (answer, status) => {
          const parsed = operation.answer.safeParse(answer);
          if (!parsed.success) return undefined;
          return operation.maps(parsed.data, params, status, this.#now());
        },
        { ...operation.about(params), nowMs: this.#now() },
        refine &&
          ((status) =>
            refine(
              status,
              params,
              refusalLookups(caller, { devices: this.#devices, known: this.#known }),
            )),
      );
    }
    const response = await this.#client.send(caller, call);
    const answer = await readOkAnswer(
      response,
      operation.answer,
      operation.what,
      { ...operation.about(params), nowMs: this.#now() },
      operation.kind === 'list' ? MAX_PAGE_BYTES : undefined,
    );
    if (operation.kind === 'read') return operation.maps(answer, params);
    const items = operation.items(answer) ?? [];
    const total = (answer as { total?: number | null }).total;
    const more =
      items.length >= PAGE_SIZE && !(typeof total === 'number' && before + items.length >= total);
    return { items, more: more && page < MAX_PAGES };
  }

  async #unsupportedControls(
    caller: UpstreamCaller,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    return this.#unsupported ? this.#unsupported(caller) : new Map();
  }

  async #storedZones(caller: UpstreamCaller): Promise<ReadonlyMap<string, StoredSiteZone>> {
    return this.#zones ? this.#zones.zones(caller.region, caller.clientId) : new Map();
  }
}

function withoutUnsupported(
  site: Site,
  unsupported: ReadonlyMap<string, ReadonlySet<string>>,
): Site {
  if (unsupported.size === 0) return site;
  return {
    ...site,
    devices: site.devices.map((device) => {
      const lacks = unsupported.get(device.deviceId);
      if (!lacks) return device;
      return {
        ...device,
        capabilities: Object.fromEntries(
          Object.entries(device.capabilities).filter(([control]) => !lacks.has(control)),
        ),
      };
    }),
  };
}

function groupBySite(devices: readonly VendorDevice[]): Map<string, VendorDevice[]> {
  const bySite = new Map<string, VendorDevice[]>();
  for (const device of devices) {
    if (!device.siteId) continue;
    bySite.set(device.siteId, [...(bySite.get(device.siteId) ?? []), device]);
  }
  return bySite;
}
