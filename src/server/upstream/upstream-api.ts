import type { z } from 'zod';
import type { BatchCancelResponse, BatchCancelResult, BatchRequest } from '../../domain/batch.ts';
import type {
  CommandCancellation,
  DeviceCommand,
  StatusRecord,
  SubmissionResponse,
} from '../../domain/command.ts';
import { checkCapabilities, type Device, type Site, type SiteList } from '../../domain/device.ts';
import type { CapabilityOutOfRangeDetails } from '../../domain/errors.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import { findActiveOverlap } from '../../domain/overlap.ts';
import { toWindowMs, type WindowMs } from '../../domain/time-window.ts';
import type { Region } from '../../domain/token.ts';
import { ProblemError } from '../http/problem.ts';
import { readOkAnswer, settleCall, type CallResult } from './upstream-answers.ts';
import type { UpstreamCaller, UpstreamRegion } from './upstream-caller.ts';
import type { UpstreamClient, UpstreamCall } from './upstream-client.ts';
import { MAX_PASS_THROUGH_BYTES, type UpstreamHttp } from './upstream-http.ts';
import type { OverlapDetails, RefusalContext } from './upstream-problem.ts';
import {
  TokenEndpoint,
  type IssuedToken,
  type TokenLog,
  type TokenPurpose,
} from './token-endpoint.ts';
import type { StoredSiteZone } from '../db/site-zones.ts';
import { toSite, toStatusRecord, toUtc } from './vendor-mapping.ts';
import {
  VendorBatchCancelSchema,
  VendorBatchSchema,
  VendorCancelSchema,
  VendorCommandPageSchema,
  VendorCommandSchema,
  VendorDevicePageSchema,
  VendorSitePageSchema,
  VendorSiteSchema,
  VendorSubmissionSchema,
  type VendorCommand,
  type VendorDevice,
} from './vendor-schemas.ts';

/** One command of one device, as status and cancel name it. */
export interface CommandRef {
  deviceId: string;
  commandId: string;
}

const id = encodeURIComponent;

/**
 * Every path of the vendor's API under a region's base URL (`…/api/openapi/v1`), built from
 * validated IDs only (docs/upstream.md: Sites, Commands, History, Batches). Submission and history
 * are `/device/` (singular) as the vendor writes them; the rest use `/devices/`.
 */
export const VENDOR_PATHS = {
  sites: '/sites',
  site: (siteId: string) => `/sites/${id(siteId)}`,
  devices: '/devices',
  submit: (deviceId: string) => `/device/${id(deviceId)}/commands`,
  history: (deviceId: string) => `/device/${id(deviceId)}/commands`,
  status: ({ deviceId, commandId }: CommandRef) =>
    `/devices/${id(deviceId)}/commands/${id(commandId)}`,
  cancel: (ref: CommandRef) => `${VENDOR_PATHS.status(ref)}/cancel`,
  batch: '/devices/commands',
  batchCancel: (batchCommandId: string) => `/devices/commands/${id(batchCommandId)}/cancel`,
} as const;

/** Items per page of every list the adapter reads: the vendor's largest (docs/upstream.md, Paging). */
export const PAGE_SIZE = 500;
/** Most pages of one list read: 100,000 items, far above any fleet. */
const MAX_PAGES = 200;
/** Largest page the BFF reads (the `large` fixture's 30-day history is about 1 MiB). */
const MAX_PAGE_BYTES = MAX_PASS_THROUGH_BYTES;

/** The zones administrators set for a client's sites (the BFF's database: db/site-zones.ts). */
export interface SiteZoneSource {
  zones(region: Region, clientId: string): Promise<ReadonlyMap<string, StoredSiteZone>>;
}

/**
 * The controls each device of the caller's account turned out not to support (a command of it
 * ended `notSupported`; the read model learns them), by device ID.
 */
export type UnsupportedControlSource = (
  caller: UpstreamCaller,
) => Promise<ReadonlyMap<string, ReadonlySet<string>>>;

/**
 * The commands the BFF knows of a device of the caller's account whose window meets `range`
 * (epoch ms): its read model's (docs/decisions/007-device-call-budget.md, section 3). An overlap
 * refusal is named from these, as a call to the vendor would spend one of the device's budget.
 */
export type KnownCommandSource = (
  caller: UpstreamCaller,
  deviceId: string,
  range: WindowMs,
) => Promise<readonly StatusRecord[]>;

/** The devices of a caller's bound sites by ID, for the ranges a 422 is worded with. */
export type DeviceLookup = (
  caller: UpstreamCaller,
  deviceIds: readonly string[],
) => Promise<ReadonlyMap<string, Device>>;

/**
 * The vendor's API behind one adapter (docs/decisions/006-vendor-adapter-and-product-api.md,
 * section 2): one typed call per vendor operation the product uses, each answer validated with
 * the vendor's schemas (vendor-schemas.ts) and mapped into the domain model (vendor-mapping.ts),
 * each refusal into a product problem (upstream-problem.ts). Lists are read to their last page.
 * State-changing calls never throw: they return a {@link CallResult} for the ledger. All go
 * through {@link UpstreamClient}: the caller's bearer token, one renewal on 401, retries for reads
 * (never for a device control call: each try spends a call of the device's budget, decision 007),
 * the region's circuit breaker. `requestId` is sent as `X-Request-Id`.
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
   * @param options.log where token endpoint failures and quirks are logged.
   * @param options.zones the zones administrators set (none: every site inferred or offset).
   * @param options.unsupportedControls the controls devices turned out not to support, left out
   *   of their capabilities.
   * @param options.knownCommands the commands the BFF knows, which an overlap refusal is named
   *   from (none: it names no command).
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

  /** Where the devices of a 422 are looked up for their ranges (the site directory). */
  set deviceLookup(lookup: DeviceLookup) {
    this.#devices = lookup;
  }

  /**
   * The token endpoint with the client-credentials grant (docs/upstream.md, Tokens), for a
   * sign-in or a renewal (the words of a failure differ); see {@link TokenEndpoint.request}.
   *
   * @throws InvalidCredentialsError when the client is refused; ProblemError
   *   `token_endpoint_error`, `token_endpoint_unreachable`, `token_endpoint_timeout` or
   *   `token_unreadable` otherwise.
   */
  token(
    region: Region,
    credentials: { clientId: string; clientSecret: string },
    purpose: TokenPurpose,
  ): Promise<IssuedToken> {
    return this.#tokenEndpoint.request(region, credentials, purpose);
  }

  /**
   * The caller's bound sites with their devices, read to the last page (`GET /sites`), each
   * with its clock (a zone an administrator set, else inferred, else the vendor's offset). When
   * the vendor leaves a site's devices out, they are read from `GET /devices`. With
   * `retry: false` each page is sent once.
   *
   * @throws ProblemError: the vendor's refusal, a transport problem, or 502 `upstream_error` for
   *   an unreadable page.
   */
  async sites(
    caller: UpstreamCaller,
    options: { retry?: boolean; requestId?: string | undefined } = {},
  ): Promise<SiteList> {
    const [vendorSites, stored, unsupported] = await Promise.all([
      this.#allPages(
        caller,
        VENDOR_PATHS.sites,
        new URLSearchParams({ includeDevices: 'true' }),
        VendorSitePageSchema,
        (page) => page.sites,
        'site list',
        { operation: 'sites' },
        options,
      ),
      this.#storedZones(caller),
      this.#unsupportedControls(caller),
    ]);
    const devicesBySite = vendorSites.some((site) => !site.devices)
      ? groupBySite(await this.#allDevices(caller, options))
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

  /**
   * One bound site with its devices (`GET /sites/{siteId}`).
   *
   * @throws ProblemError 404 `unknown_or_unbound`, other refusals, transport problems.
   */
  async site(caller: UpstreamCaller, siteId: string, requestId?: string): Promise<Site> {
    const context = { operation: 'site', siteId, nowMs: this.#now() } as const;
    const [vendorSite, stored, unsupported] = await Promise.all([
      this.#send(caller, { method: 'GET', path: VENDOR_PATHS.site(siteId), requestId }).then(
        (response) => readOkAnswer(response, VendorSiteSchema, 'site', context),
      ),
      this.#storedZones(caller),
      this.#unsupportedControls(caller),
    ]);
    const devices = vendorSite.devices
      ? undefined
      : (await this.#allDevices(caller, {})).filter((device) => device.siteId === siteId);
    return withoutUnsupported(
      toSite(vendorSite, {
        stored: stored.get(vendorSite.id),
        nowMs: this.#now(),
        ...(devices ? { devices } : {}),
      }),
      unsupported,
    );
  }

  /**
   * Binds a site to the caller (`POST /sites`, docs/upstream.md, Sites). A site already in the
   * caller's list is answered 200 with it, nothing sent; one bound now 201 with the site read
   * back. 409 (bound to another partner account) is `site_bound_elsewhere`.
   */
  async bind(
    caller: UpstreamCaller,
    siteId: string,
    requestId?: string,
  ): Promise<CallResult<Site>> {
    const context = { operation: 'bind', siteId, nowMs: this.#now() } as const;
    try {
      const listed = (await this.sites(caller, { requestId })).sites.find(
        (site) => site.siteId === siteId,
      );
      if (listed) return { kind: 'accepted', status: 200, value: listed };
    } catch (error) {
      if (error instanceof ProblemError) return { kind: 'refused', problem: error };
      throw error;
    }
    const bound = await settleCall(
      () =>
        this.#send(caller, {
          method: 'POST',
          path: VENDOR_PATHS.sites,
          body: { siteId },
          requestId,
        }),
      (_answer, status) => ({ status, value: undefined }),
      context,
    );
    if (bound.kind !== 'accepted') return bound;
    try {
      return { kind: 'accepted', status: 201, value: await this.site(caller, siteId) };
    } catch (error) {
      // Bound, but not readable back: the product answers the site as far as it knows it.
      if (!(error instanceof ProblemError)) throw error;
      return {
        kind: 'accepted',
        status: 201,
        value: { siteId, name: siteId, timeZone: 'UTC', clock: { source: 'offset' }, devices: [] },
      };
    }
  }

  /** Unbinds a site (`DELETE /sites/{siteId}`, no body); 204 for the product. */
  unbind(
    caller: UpstreamCaller,
    siteId: string,
    requestId?: string,
  ): Promise<CallResult<undefined>> {
    return settleCall(
      () => this.#send(caller, { method: 'DELETE', path: VENDOR_PATHS.site(siteId), requestId }),
      () => ({ status: 204, value: undefined }),
      { operation: 'unbind', siteId, nowMs: this.#now() },
    );
  }

  /**
   * Sends one device command (`POST /device/{deviceId}/commands`); 202 with its ID. A 422 is
   * worded with the first value outside the device's range, worked out here.
   */
  submit(
    caller: UpstreamCaller,
    deviceId: string,
    command: DeviceCommand,
    requestId?: string,
  ): Promise<CallResult<SubmissionResponse>> {
    return settleCall(
      () =>
        this.#send(caller, {
          method: 'POST',
          path: VENDOR_PATHS.submit(deviceId),
          body: command,
          requestId,
        }),
      (answer) => {
        const parsed = VendorSubmissionSchema.safeParse(answer);
        if (!parsed.success) return undefined;
        return {
          status: 202,
          value: {
            id: parsed.data.id,
            // Our words: the vendor's message may name its paths.
            message: 'The device received the command.',
            timestamp: toUtc(parsed.data.timestamp) ?? new Date(this.#now()).toISOString(),
          },
        };
      },
      { operation: 'submit', deviceId, nowMs: this.#now() },
      async (status) =>
        status === 422
          ? { outOfRange: await this.#outOfRange(caller, [deviceId], command) }
          : { overlap: await this.#overlapOf(caller, deviceId, command) },
    );
  }

  /**
   * The status record of one command (`GET /devices/{deviceId}/commands/{commandId}`). Sent
   * without a request ID: one answer may serve several browsers (status sharing).
   *
   * @throws ProblemError: the refusal (404 `unknown_or_unbound`...), 502 for an unreadable record.
   */
  async status(caller: UpstreamCaller, ref: CommandRef): Promise<StatusRecord> {
    // Sent once: each try costs one of the device's calls (docs/upstream.md, Rate limit).
    const response = await this.#send(caller, {
      method: 'GET',
      path: VENDOR_PATHS.status(ref),
      retry: false,
    });
    const command = await readOkAnswer(response, VendorCommandSchema, 'command status', {
      operation: 'status',
      deviceId: ref.deviceId,
      nowMs: this.#now(),
    });
    const record = toStatusRecord(command, ref.deviceId);
    if (!record) throw unreadable('command status');
    return record;
  }

  /**
   * Cancels one command (`PUT /devices/{deviceId}/commands/{commandId}/cancel`): the product's
   * CommandCancellation (cancelled now by an operator). 409 is `not_cancellable`.
   */
  cancel(
    caller: UpstreamCaller,
    ref: CommandRef,
    requestId?: string,
  ): Promise<CallResult<CommandCancellation>> {
    return settleCall(
      // Sent once: each try spends a call of the device's budget, and a 429 is never retried blind
      // (docs/decisions/007-device-call-budget.md, section 1); an unknown outcome is the ledger's.
      () =>
        this.#send(caller, {
          method: 'PUT',
          path: VENDOR_PATHS.cancel(ref),
          requestId,
          retry: false,
        }),
      (answer) => {
        const parsed = VendorCancelSchema.safeParse(answer ?? {});
        if (!parsed.success) return undefined;
        return {
          status: 200,
          value: {
            deviceId: ref.deviceId,
            commandId: ref.commandId,
            status: 'cancelled',
            cancelledAt: toUtc(parsed.data.timestamp) ?? new Date(this.#now()).toISOString(),
            cancelReason: 'manuallyCancel',
          },
        };
      },
      { operation: 'cancel', deviceId: ref.deviceId, nowMs: this.#now() },
    );
  }

  /**
   * The commands of `deviceId` whose window meets the range, at most 30 days
   * (`GET /device/{deviceId}/commands`), every page read.
   *
   * @throws ProblemError: the refusal, or 502 `upstream_error` for an unreadable page or record.
   */
  async history(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
    requestId?: string,
  ): Promise<StatusRecord[]> {
    const commands = await this.#allPages(
      caller,
      VENDOR_PATHS.history(deviceId),
      historyParams(query),
      VendorCommandPageSchema,
      (page) => page.commands,
      'command history',
      { operation: 'history', deviceId },
      // Sent once: each try costs one of the device's calls (docs/upstream.md, Rate limit).
      { requestId, retry: false },
    );
    return commands.map((command: VendorCommand) => toHistoryRecord(command, deviceId));
  }

  /**
   * One page of `deviceId`'s history over the range (`GET /device/{deviceId}/commands`, page
   * `page` of {@link PAGE_SIZE}), sent once: the read model takes a slot of the device's budget
   * for each page it reads. `more` says whether a page follows.
   *
   * @throws ProblemError: the refusal (429 `device_rate_limited` with its wait), a transport
   *   problem, or 502 `upstream_error` for an unreadable page or record.
   */
  async historyPage(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
    page: number,
  ): Promise<{ commands: StatusRecord[]; more: boolean }> {
    const { items, more } = await this.#page(
      caller,
      VENDOR_PATHS.history(deviceId),
      historyParams(query),
      VendorCommandPageSchema,
      (answer) => answer.commands,
      'command history',
      { operation: 'history', deviceId },
      { retry: false },
      page,
      (page - 1) * PAGE_SIZE,
    );
    return {
      commands: items.map((command: VendorCommand) => toHistoryRecord(command, deviceId)),
      more,
    };
  }

  /**
   * Sends one command to many devices (`POST /devices/commands`): the vendor's batch ID and when
   * it answered; the answer names no device command (the ledger finds them in the histories).
   */
  batch(
    caller: UpstreamCaller,
    request: BatchRequest,
    requestId?: string,
  ): Promise<CallResult<{ batchCommandId: string; timestamp: string }>> {
    return settleCall(
      () =>
        this.#send(caller, { method: 'POST', path: VENDOR_PATHS.batch, body: request, requestId }),
      (answer) => {
        const parsed = VendorBatchSchema.safeParse(answer);
        if (!parsed.success) return undefined;
        return {
          status: 202,
          value: {
            batchCommandId: parsed.data.batchCommandId,
            timestamp: toUtc(parsed.data.timestamp) ?? new Date(this.#now()).toISOString(),
          },
        };
      },
      { operation: 'batch', deviceIds: request.devices, nowMs: this.#now() },
      async (status) =>
        status === 422
          ? { outOfRange: await this.#outOfRange(caller, request.devices, request.command) }
          : {},
    );
  }

  /**
   * Cancels a batch's commands (`PUT /devices/commands/{batchCommandId}/cancel`): one result per
   * device, `success` for those cancelled. 409 is `batch_not_cancellable`.
   */
  batchCancel(
    caller: UpstreamCaller,
    batchCommandId: string,
    requestId?: string,
  ): Promise<CallResult<BatchCancelResponse>> {
    return settleCall(
      () =>
        // Sent once, as a cancel is: a try spends a call of each device's budget.
        this.#send(caller, {
          method: 'PUT',
          path: VENDOR_PATHS.batchCancel(batchCommandId),
          requestId,
          retry: false,
        }),
      (answer) => {
        const parsed = VendorBatchCancelSchema.safeParse(answer);
        if (!parsed.success) return undefined;
        return {
          status: 200,
          value: {
            batchCommandId,
            results: (parsed.data.results ?? []).map((result): BatchCancelResult =>
              result.status === 'cancelled'
                ? {
                    deviceId: result.deviceId,
                    ...(result.commandId ? { commandId: result.commandId } : {}),
                    success: true,
                    status: 'cancelled',
                  }
                : {
                    deviceId: result.deviceId,
                    ...(result.commandId ? { commandId: result.commandId } : {}),
                    success: false,
                    error: {
                      code: 'not_cancellable',
                      message: 'Not cancelled: the command has finished or could not be cancelled.',
                    },
                  },
            ),
          },
        };
      },
      { operation: 'batchCancel', nowMs: this.#now() },
    );
  }

  /** Every device of the caller's bound sites (`GET /devices`), every page read. */
  #allDevices(
    caller: UpstreamCaller,
    options: { retry?: boolean; requestId?: string | undefined },
  ): Promise<VendorDevice[]> {
    return this.#allPages(
      caller,
      VENDOR_PATHS.devices,
      new URLSearchParams(),
      VendorDevicePageSchema,
      (page) => page.devices,
      'device list',
      { operation: 'devices' },
      options,
    );
  }

  /**
   * Reads a vendor list to its last page, {@link PAGE_SIZE} items a page: until a page comes
   * back short or empty, or `total` items are in (docs/upstream.md, Paging).
   */
  async #allPages<S extends z.ZodType, T>(
    caller: UpstreamCaller,
    path: string,
    query: URLSearchParams,
    schema: S,
    itemsOf: (page: z.output<S>) => T[] | null | undefined,
    what: string,
    context: Omit<RefusalContext, 'nowMs'>,
    options: { retry?: boolean; requestId?: string | undefined },
  ): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.#page(
        caller,
        path,
        query,
        schema,
        itemsOf,
        what,
        context,
        options,
        page,
        items.length,
      );
      items.push(...answer.items);
      if (!answer.more) break;
    }
    return items;
  }

  /**
   * Page `page` of a vendor list, and whether another follows: not when it came back short or
   * empty, or when `total` items are in with the `before` of earlier pages (docs/upstream.md,
   * Paging).
   */
  async #page<S extends z.ZodType, T>(
    caller: UpstreamCaller,
    path: string,
    query: URLSearchParams,
    schema: S,
    itemsOf: (page: z.output<S>) => T[] | null | undefined,
    what: string,
    context: Omit<RefusalContext, 'nowMs'>,
    options: { retry?: boolean; requestId?: string | undefined },
    page: number,
    before: number,
  ): Promise<{ items: T[]; more: boolean }> {
    const pageQuery = new URLSearchParams(query);
    pageQuery.set('page', String(page));
    pageQuery.set('size', String(PAGE_SIZE));
    const response = await this.#send(caller, {
      method: 'GET',
      path,
      query: pageQuery,
      ...(options.retry === false ? { retry: false } : {}),
      ...(page === 1 && options.requestId ? { requestId: options.requestId } : {}),
    });
    const answer = await readOkAnswer(
      response,
      schema,
      what,
      { ...context, nowMs: this.#now() },
      MAX_PAGE_BYTES,
    );
    const items = itemsOf(answer) ?? [];
    const total = (answer as { total?: number | null }).total;
    const more =
      items.length >= PAGE_SIZE && !(typeof total === 'number' && before + items.length >= total);
    return { items, more: more && page < MAX_PAGES };
  }

  /** The first value outside its device's range among `deviceIds`, when the ranges are known. */
  async #outOfRange(
    caller: UpstreamCaller,
    deviceIds: readonly string[],
    command: DeviceCommand,
  ): Promise<CapabilityOutOfRangeDetails | undefined> {
    if (!this.#devices) return undefined;
    const devices = await this.#devices(caller, deviceIds);
    for (const deviceId of deviceIds) {
      const device = devices.get(deviceId);
      if (!device) continue;
      const violation = checkCapabilities(command.powerControl, device.capabilities).find(
        (v) => v.kind === 'outOfRange',
      );
      if (violation?.kind === 'outOfRange')
        return {
          deviceId,
          property: violation.property,
          value: violation.value,
          min: violation.range.min,
          max: violation.range.max,
        };
    }
    return undefined;
  }

  /**
   * The command in the way of a submission the vendor refused for overlap (its refusal does not
   * name it): the device's active command whose window overlaps (domain `findActiveOverlap`)
   * among the commands the BFF knows. Never read from the vendor: that read would be a call of
   * the device outside its budget (docs/decisions/007-device-call-budget.md, section 1).
   * Undefined when none is known (made outside powerdeck and not read yet).
   */
  async #overlapOf(
    caller: UpstreamCaller,
    deviceId: string,
    command: DeviceCommand,
  ): Promise<OverlapDetails | undefined> {
    if (!this.#known) return undefined;
    const window = toWindowMs(command);
    const active = findActiveOverlap(window, await this.#known(caller, deviceId, window));
    return active
      ? { conflictingCommandId: active.id, startTime: active.startTime, endTime: active.endTime }
      : undefined;
  }

  async #unsupportedControls(
    caller: UpstreamCaller,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    return this.#unsupported ? this.#unsupported(caller) : new Map();
  }

  async #storedZones(caller: UpstreamCaller): Promise<ReadonlyMap<string, StoredSiteZone>> {
    return this.#zones ? this.#zones.zones(caller.region, caller.clientId) : new Map();
  }

  #send(
    caller: UpstreamCaller,
    call: Omit<UpstreamCall, 'requestId'> & { requestId?: string | undefined },
  ) {
    const { requestId, ...rest } = call;
    return this.#client.send(caller, requestId ? { ...rest, requestId } : rest);
  }
}

/** `site` with the controls its devices turned out not to support left out of their capabilities. */
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

function historyParams(query: HistoryQuery): URLSearchParams {
  return new URLSearchParams({
    startTime: query.startTime,
    endTime: query.endTime,
    ...(query.status ? { status: query.status } : {}),
  });
}

function toHistoryRecord(command: VendorCommand, deviceId: string): StatusRecord {
  const record = toStatusRecord(command, deviceId);
  if (!record) throw unreadable('command history');
  return record;
}

function groupBySite(devices: readonly VendorDevice[]): Map<string, VendorDevice[]> {
  const bySite = new Map<string, VendorDevice[]>();
  for (const device of devices) {
    if (!device.siteId) continue;
    bySite.set(device.siteId, [...(bySite.get(device.siteId) ?? []), device]);
  }
  return bySite;
}

function unreadable(what: string): ProblemError {
  return new ProblemError(
    502,
    'upstream_error',
    `The vendor's ${what} was unreadable. Try again in a moment; if it persists, report it to the vendor's support.`,
  );
}
