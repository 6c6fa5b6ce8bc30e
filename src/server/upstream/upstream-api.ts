import type { z } from 'zod';
import type { BatchCancelResponse, BatchRequest } from '../../domain/batch.ts';
import type {
  CommandCancellation,
  DeviceCommand,
  StatusRecord,
  SubmissionResponse,
} from '../../domain/command.ts';
import type { Site, SiteList } from '../../domain/device.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import type { Region } from '../../domain/token.ts';
import { ProblemError } from '../http/problem.ts';
import { readOkAnswer, settleCall, type CallResult } from './upstream-answers.ts';
import type { UpstreamCaller, UpstreamRegion } from './upstream-caller.ts';
import type { UpstreamClient, UpstreamCall } from './upstream-client.ts';
import type { UpstreamHttp } from './upstream-http.ts';
import {
  TokenEndpoint,
  type IssuedToken,
  type TokenLog,
  type TokenPurpose,
} from './token-endpoint.ts';
import { refusalLookups, type DeviceLookup, type KnownCommandSource } from './refusal-lookups.ts';
import type { StoredSiteZone } from '../db/site-zones.ts';
import { toSite } from './vendor-mapping.ts';
import type { VendorDevice } from './vendor-schemas.ts';
import {
  MAX_PAGE_BYTES,
  PAGE_SIZE,
  VENDOR_OPERATIONS as VENDOR,
  type ChangeOperation,
  type CommandRef,
  type ListOperation,
  type ReadOperation,
} from './vendor-operations.ts';

export { PAGE_SIZE, type CommandRef } from './vendor-operations.ts';
export type { DeviceLookup, KnownCommandSource } from './refusal-lookups.ts';

/** Most pages of one list read: 100,000 items, far above any fleet. */
const MAX_PAGES = 200;

/** How one call is sent: its request ID (`X-Request-Id`), and `retry: false` to send it once. */
interface CallOptions {
  retry?: boolean | undefined;
  requestId?: string | undefined;
}

/** Page `page` of a list, after `before` items of the pages before it. */
interface PageOptions extends CallOptions {
  page: number;
  before: number;
}

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
 * The vendor's API behind one adapter (docs/decisions/006-vendor-adapter-and-product-api.md,
 * section 2): one typed method per vendor operation the product uses, each an entry of the one
 * table of them (vendor-operations.ts: path, method, the schema of the answer and what it maps to
 * in the domain model) made by one call function, each refusal worded as a product problem
 * (upstream-problem.ts). Lists are read to their last page. State-changing calls never throw:
 * they return a {@link CallResult} for the ledger. All go through {@link UpstreamClient}: the
 * caller's bearer token, one renewal on 401, retries for reads (never for a device control call:
 * each try spends a call of the device's budget, decision 007), the region's circuit breaker.
 * `requestId` is sent as `X-Request-Id`.
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

  /**
   * One bound site with its devices (`GET /sites/{siteId}`).
   *
   * @throws ProblemError 404 `unknown_or_unbound`, other refusals, transport problems.
   */
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
    return this.#call(caller, VENDOR.unbind, siteId, { requestId });
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
    return this.#call(caller, VENDOR.submit, { deviceId, command }, { requestId });
  }

  /**
   * The status record of one command (`GET /devices/{deviceId}/commands/{commandId}`), sent
   * once. Sent without a request ID: one answer may serve several browsers (status sharing).
   *
   * @throws ProblemError: the refusal (404 `unknown_or_unbound`...), 502 for an unreadable record.
   */
  status(caller: UpstreamCaller, ref: CommandRef): Promise<StatusRecord> {
    return this.#call(caller, VENDOR.status, ref);
  }

  /**
   * Cancels one command (`PUT /devices/{deviceId}/commands/{commandId}/cancel`), sent once: the
   * product's CommandCancellation (cancelled now by an operator). 409 is `not_cancellable`.
   */
  cancel(
    caller: UpstreamCaller,
    ref: CommandRef,
    requestId?: string,
  ): Promise<CallResult<CommandCancellation>> {
    return this.#call(caller, VENDOR.cancel, ref, { requestId });
  }

  /**
   * The commands of `deviceId` whose window meets the range, at most 30 days
   * (`GET /device/{deviceId}/commands`), every page read, each sent once.
   *
   * @throws ProblemError: the refusal, or 502 `upstream_error` for an unreadable page or record.
   */
  history(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
    requestId?: string,
  ): Promise<StatusRecord[]> {
    return this.#allPages(caller, VENDOR.history, { deviceId, query }, { requestId });
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
    const params = { deviceId, query };
    const { items, more } = await this.#call(caller, VENDOR.history, params, {
      page,
      before: (page - 1) * PAGE_SIZE,
    });
    return { commands: items.map((command) => VENDOR.history.maps(command, params)), more };
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
    return this.#call(caller, VENDOR.batch, request, { requestId });
  }

  /**
   * Cancels a batch's commands (`PUT /devices/commands/{batchCommandId}/cancel`), sent once: one
   * result per device, `success` for those cancelled. 409 is `batch_not_cancellable`.
   */
  batchCancel(
    caller: UpstreamCaller,
    batchCommandId: string,
    requestId?: string,
  ): Promise<CallResult<BatchCancelResponse>> {
    return this.#call(caller, VENDOR.batchCancel, batchCommandId, { requestId });
  }

  /**
   * Reads a vendor list to its last page, {@link PAGE_SIZE} items a page: until a page comes
   * back short or empty, or `total` items are in (docs/upstream.md, Paging); then maps its items.
   */
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
        // The first page carries the request's ID.
        requestId: page === 1 ? options.requestId : undefined,
        page,
        before: items.length,
      });
      items.push(...answer.items);
      if (!answer.more) break;
    }
    return items.map((item) => operation.maps(item, params));
  }

  /**
   * Makes one call of the vendor's operation `operation` (vendor-operations.ts) with `params`:
   * - a read: its answer validated and mapped; a refusal or unreadable answer thrown;
   * - a page of a list: its items, and whether another follows (not when it came back short or
   *   empty, or when `total` items are in with the `before` of earlier pages; docs/upstream.md,
   *   Paging);
   * - a change: what it came to, never thrown (upstream-answers.ts, `settleCall`).
   */
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
      ...(operation.kind === 'change' && operation.body ? { body: operation.body(params) } : {}),
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

function groupBySite(devices: readonly VendorDevice[]): Map<string, VendorDevice[]> {
  const bySite = new Map<string, VendorDevice[]>();
  for (const device of devices) {
    if (!device.siteId) continue;
    bySite.set(device.siteId, [...(bySite.get(device.siteId) ?? []), device]);
  }
  return bySite;
}
