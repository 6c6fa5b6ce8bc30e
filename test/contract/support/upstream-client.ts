import type { ContractHttp, ContractResponse, ServerKind } from './contract-http.ts';
import type { DevicePacer } from './device-pacer.ts';
import { BatchAcceptedSchema, TokenAnswerSchema } from '#sandbox/vendor/schemas.ts';

const segment = encodeURIComponent;

/**
 * The vendor's operations (docs/upstream.md), one method each, with the vendor's paths relative
 * to the region's base URL. Bodies are `unknown` so tests can send malformed ones; every response
 * has already been checked against the OpenAPI document by {@link ContractHttp}. With a
 * {@link DevicePacer} (a real vendor), each call about devices first waits for their slots of the
 * vendor's rate limit, or, with `wait: false`, is only counted.
 */
export class UpstreamClient {
  /** The token sent with every call but the token request; set by {@link signIn}. */
  accessToken: string | undefined;

  constructor(
    private readonly http: ContractHttp,
    readonly credentials: { clientId: string; clientSecret: string },
    private readonly servers: { auth: ServerKind; base: ServerKind } = {
      auth: 'auth',
      base: 'base',
    },
    private readonly pacing?: { pacer: DevicePacer; wait: boolean },
  ) {}

  /** `POST {auth}/api/auth/oauth2/token` with the given form (docs/upstream.md, Tokens). */
  requestToken(form: Record<string, string>): Promise<ContractResponse> {
    return this.http.send({
      server: this.servers.auth,
      method: 'POST',
      path: '/api/auth/oauth2/token',
      form,
    });
  }

  /** `POST {auth}/api/auth/oauth2/token` with a body of another media type. */
  requestTokenRaw(contentType: string, body: string): Promise<ContractResponse> {
    return this.http.send({
      server: this.servers.auth,
      method: 'POST',
      path: '/api/auth/oauth2/token',
      raw: { contentType, body },
    });
  }

  /** Obtains a token with the client credentials and keeps it for later calls. */
  async signIn(): Promise<{ accessToken: string; expiresInS: number }> {
    const response = await this.requestToken({
      grant_type: 'client_credentials',
      client_id: this.credentials.clientId,
      client_secret: this.credentials.clientSecret,
    });
    if (response.status !== 200)
      throw new Error(
        `Token request answered ${response.status}: ${JSON.stringify(response.body)}`,
      );
    const token = TokenAnswerSchema.parse(response.body);
    this.accessToken = token.access_token;
    return { accessToken: token.access_token, expiresInS: token.expires_in };
  }

  private async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: {
      json?: unknown;
      query?: Record<string, string>;
      token?: string;
      /** The devices the call is about, each spending a slot of the vendor's rate limit. */
      devices?: readonly string[];
    } = {},
  ): Promise<ContractResponse> {
    if (options.devices && this.pacing) {
      if (this.pacing.wait) await this.pacing.pacer.before(options.devices);
      else this.pacing.pacer.record(options.devices);
    }
    return this.http.send({
      server: this.servers.base,
      method,
      path,
      json: options.json,
      query: options.query,
      token: 'token' in options ? options.token : this.accessToken,
    });
  }

  listSites(query: Record<string, string> = {}, options?: { token?: string }) {
    return this.call('GET', '/sites', { query, ...options });
  }

  getSite(siteId: string, query: Record<string, string> = {}) {
    return this.call('GET', `/sites/${segment(siteId)}`, { query });
  }

  bindSite(siteId: string) {
    return this.call('POST', '/sites', { json: { siteId } });
  }

  /** The vendor's unbind, `DELETE /sites/{siteId}`. */
  unbindSite(siteId: string) {
    return this.call('DELETE', `/sites/${segment(siteId)}`);
  }

  /**
   * The other unbind the sandbox takes, `DELETE /sites` with a JSON body (docs/upstream.md,
   * Decisions).
   */
  unbindSiteByBody(siteId: string) {
    return this.call('DELETE', '/sites', { json: { siteId } });
  }

  listDevices(query: Record<string, string> = {}) {
    return this.call('GET', '/devices', { query });
  }

  getDevice(deviceId: string) {
    return this.call('GET', `/devices/${segment(deviceId)}`);
  }

  /** `POST /device/{deviceId}/commands` (singular `device`). */
  submitCommand(deviceId: string, command: unknown, options?: { token?: string }) {
    return this.call('POST', `/device/${segment(deviceId)}/commands`, {
      json: command,
      devices: [deviceId],
      ...options,
    });
  }

  queryStatus(deviceId: string, commandId: string, options?: { token?: string }) {
    return this.call('GET', `/devices/${segment(deviceId)}/commands/${segment(commandId)}`, {
      devices: [deviceId],
      ...options,
    });
  }

  cancelCommand(deviceId: string, commandId: string) {
    return this.call('PUT', `/devices/${segment(deviceId)}/commands/${segment(commandId)}/cancel`, {
      devices: [deviceId],
    });
  }

  /** `GET /device/{deviceId}/commands` (singular `device`). */
  queryHistory(deviceId: string, query: Record<string, string>) {
    return this.call('GET', `/device/${segment(deviceId)}/commands`, {
      query,
      devices: [deviceId],
    });
  }

  /** `POST /devices/commands`; a batch counts once per device (docs/upstream.md, Rate limit). */
  async submitBatch(batch: unknown) {
    const listed = (batch as { devices?: unknown } | null)?.devices;
    const devices = Array.isArray(listed)
      ? listed.filter((id): id is string => typeof id === 'string')
      : [];
    const response = await this.call('POST', '/devices/commands', { json: batch, devices });
    const accepted = BatchAcceptedSchema.safeParse(response.body);
    if (accepted.success) this.pacing?.pacer.rememberBatch(accepted.data.batchCommandId, devices);
    return response;
  }

  /** `GET /devices/{deviceId}/latestData` (docs/upstream.md, Telemetry). */
  latestData(deviceId: string) {
    return this.call('GET', `/devices/${segment(deviceId)}/latestData`, { devices: [deviceId] });
  }

  /** `POST /devices/latestData/query`; counts once per device, as a batch does. */
  latestDataOf(devices: readonly string[]) {
    return this.call('POST', '/devices/latestData/query', { json: { devices }, devices });
  }

  telemetryHistory(deviceId: string, query: Record<string, string>) {
    return this.call('GET', `/devices/${segment(deviceId)}/historicalData`, {
      query,
      devices: [deviceId],
    });
  }

  energy(deviceId: string, query: Record<string, string>) {
    return this.call('GET', `/devices/${segment(deviceId)}/energy`, { query, devices: [deviceId] });
  }

  alarms(deviceId: string, query: Record<string, string> = {}) {
    return this.call('GET', `/devices/${segment(deviceId)}/alarms`, { query, devices: [deviceId] });
  }

  configuration(deviceId: string) {
    return this.call('GET', `/devices/${segment(deviceId)}/configuration`, { devices: [deviceId] });
  }

  setConfiguration(deviceId: string, configuration: unknown) {
    return this.call('PUT', `/devices/${segment(deviceId)}/configuration`, {
      json: configuration,
      devices: [deviceId],
    });
  }

  cancelBatch(batchCommandId: string) {
    return this.call('PUT', `/devices/commands/${segment(batchCommandId)}/cancel`, {
      devices: this.pacing?.pacer.devicesOf(batchCommandId) ?? [],
    });
  }
}
