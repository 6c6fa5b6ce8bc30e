import type { BatchRequest } from '../../domain/batch.ts';
import { StatusRecordSchema, type DeviceCommand, type StatusRecord } from '../../domain/command.ts';
import { SiteListSchema, type SiteList } from '../../domain/device.ts';
import { HistoryResponseSchema, type HistoryQuery } from '../../domain/history.ts';
import { TOKEN_PATH, type Region } from '../../domain/token.ts';
import { readOkAnswer } from './upstream-answers.ts';
import type { UpstreamCaller, UpstreamRegion } from './upstream-caller.ts';
import type { UpstreamClient } from './upstream-client.ts';
import {
  MAX_PASS_THROUGH_BYTES,
  type UpstreamHttp,
  type UpstreamResponse,
} from './upstream-http.ts';
import {
  TokenEndpoint,
  type IssuedToken,
  type TokenLog,
  type TokenPurpose,
} from './token-endpoint.ts';

/** One command of one device, as status and cancel name it. */
export interface CommandRef {
  deviceId: string;
  commandId: string;
}

const id = encodeURIComponent;

/**
 * Every path of the upstream API under a region's base URL, built from validated IDs only
 * (spec 4; where the spec shows none, docs/architecture.md, Upstream contract: History, Batch,
 * Batch cancel, Sites). Submission is `/device/` (singular) as the spec writes it; the rest use
 * `/devices/`. A real vendor's other paths are an edit here.
 */
export const UPSTREAM_PATHS = {
  /** Under the region's auth URL, not its base URL (spec 4, 5 rule 2). */
  token: TOKEN_PATH,
  submit: (deviceId: string) => `/device/${id(deviceId)}/commands`,
  status: ({ deviceId, commandId }: CommandRef) =>
    `/devices/${id(deviceId)}/commands/${id(commandId)}`,
  cancel: (ref: CommandRef) => `${UPSTREAM_PATHS.status(ref)}/cancel`,
  history: (deviceId: string) => `/devices/${id(deviceId)}/commands`,
  batch: '/devices/commands/batch',
  batchCancel: (batchCommandId: string) => `/devices/commands/batch/${id(batchCommandId)}/cancel`,
  sites: '/sites',
} as const;

/** Largest history or site list the BFF reads itself (the `large` fixture's are about 1 MiB). */
const MAX_READ_LIST_BYTES = MAX_PASS_THROUGH_BYTES;

/**
 * The upstream device command API, one typed call per operation (spec 4). Calls whose answer
 * goes to the browser return it unread (`UpstreamResponse`), to be streamed or read by the
 * caller; `siteList` and `historyRecords` read and validate theirs. All go through
 * {@link UpstreamClient}: the caller's bearer token, one renewal on 401, retries for GET and PUT,
 * the region's circuit breaker. `requestId` is sent as `X-Request-Id`.
 */
export class UpstreamApi {
  readonly #client: UpstreamClient;
  readonly #tokenEndpoint: TokenEndpoint;

  /** @param options.log where token endpoint failures and quirks are logged. */
  constructor(options: {
    client: UpstreamClient;
    http: UpstreamHttp;
    upstreams: Record<Region, UpstreamRegion>;
    log: TokenLog;
  }) {
    this.#client = options.client;
    this.#tokenEndpoint = new TokenEndpoint(options);
  }

  /**
   * `POST {authUrl}/api/auth/oauth2/token` with the client-credentials grant (spec 2.6, 5), for
   * a sign-in or a renewal (the words of a failure differ); see {@link TokenEndpoint.request}.
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

  /** `POST /device/{deviceId}/commands` (spec 4, "Send device command"); 202 `{ id, ... }`. */
  submit(
    caller: UpstreamCaller,
    deviceId: string,
    command: DeviceCommand,
    requestId?: string,
  ): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'POST',
      path: UPSTREAM_PATHS.submit(deviceId),
      body: command,
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * `GET /devices/{deviceId}/commands/{commandId}` (spec 4): the status record. Sent without a
   * request ID: one answer may serve several browsers (status reuse).
   */
  status(caller: UpstreamCaller, ref: CommandRef): Promise<UpstreamResponse> {
    return this.#client.send(caller, { method: 'GET', path: UPSTREAM_PATHS.status(ref) });
  }

  /**
   * The status record of one command, read and validated (spec 2.4, 4).
   *
   * @throws ProblemError: the upstream's error, or 502 `upstream_error` for an unreadable record.
   */
  async statusRecord(caller: UpstreamCaller, ref: CommandRef): Promise<StatusRecord> {
    return readOkAnswer(await this.status(caller, ref), StatusRecordSchema, 'command status');
  }

  /** `PUT /devices/{deviceId}/commands/{commandId}/cancel` (spec 4); 200 with the status record. */
  cancel(caller: UpstreamCaller, ref: CommandRef, requestId?: string): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'PUT',
      path: UPSTREAM_PATHS.cancel(ref),
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * `GET /devices/{deviceId}/commands?startTime&endTime&status` (docs/architecture.md, Upstream
   * contract: History): commands whose window intersects the range, at most 30 days.
   */
  history(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
    requestId?: string,
  ): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'GET',
      path: UPSTREAM_PATHS.history(deviceId),
      query: new URLSearchParams({
        startTime: query.startTime,
        endTime: query.endTime,
        ...(query.status ? { status: query.status } : {}),
      }),
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * The history of `deviceId` over `query`, read and validated.
   *
   * @throws ProblemError: the upstream's error, or 502 `upstream_error` for an unreadable list.
   */
  async historyRecords(
    caller: UpstreamCaller,
    deviceId: string,
    query: HistoryQuery,
  ): Promise<StatusRecord[]> {
    const response = await this.history(caller, deviceId, query);
    const history = await readOkAnswer(
      response,
      HistoryResponseSchema,
      'command history',
      MAX_READ_LIST_BYTES,
    );
    return history.commands;
  }

  /**
   * `POST /devices/commands/batch` `{ devices, command }` (docs/architecture.md, Upstream
   * contract: Batch); 202 `{ batchCommandId, message, timestamp, commands }`.
   */
  batch(
    caller: UpstreamCaller,
    request: BatchRequest,
    requestId?: string,
  ): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'POST',
      path: UPSTREAM_PATHS.batch,
      body: request,
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * `PUT /devices/commands/batch/{batchCommandId}/cancel` (docs/architecture.md, Upstream
   * contract: Batch cancel); 200 `{ batchCommandId, results }`.
   */
  batchCancel(
    caller: UpstreamCaller,
    batchCommandId: string,
    requestId?: string,
  ): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'PUT',
      path: UPSTREAM_PATHS.batchCancel(batchCommandId),
      ...(requestId ? { requestId } : {}),
    });
  }

  /** `GET /sites` (spec 4, "List authorized sites"): `{ sites }` in bind order. */
  sites(caller: UpstreamCaller, requestId?: string): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'GET',
      path: UPSTREAM_PATHS.sites,
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * The caller's bound sites with their devices and time zones, read and validated. With
   * `retry: false` it is sent once, whatever the method's default.
   *
   * @throws ProblemError: the upstream's error, a transport problem, or 502 `upstream_error`
   *   for an unreadable list.
   */
  async siteList(caller: UpstreamCaller, options: { retry?: boolean } = {}): Promise<SiteList> {
    const response = await this.#client.send(caller, {
      method: 'GET',
      path: UPSTREAM_PATHS.sites,
      ...(options.retry === false ? { retry: false } : {}),
    });
    return readOkAnswer(response, SiteListSchema, 'site list', MAX_READ_LIST_BYTES);
  }

  /** `POST /sites` `{ siteId }` (spec 4, 2.7); 201, or 200 when already bound. */
  bind(caller: UpstreamCaller, siteId: string, requestId?: string): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'POST',
      path: UPSTREAM_PATHS.sites,
      body: { siteId },
      ...(requestId ? { requestId } : {}),
    });
  }

  /** `DELETE /sites` `{ siteId }` (spec 4, 2.7); 204. */
  unbind(caller: UpstreamCaller, siteId: string, requestId?: string): Promise<UpstreamResponse> {
    return this.#client.send(caller, {
      method: 'DELETE',
      path: UPSTREAM_PATHS.sites,
      body: { siteId },
      ...(requestId ? { requestId } : {}),
    });
  }
}
