import type { ContractHttp, ContractResponse, ServerKind } from './contract-http.ts';
import { TokenResponseSchema } from '../../../src/domain/token.ts';
import type { DeviceCommand } from '../../../src/domain/command.ts';
import type { BatchRequest } from '../../../src/domain/batch.ts';

const segment = encodeURIComponent;

/**
 * The upstream operations of spec 4, one method each, with the paths of docs/architecture.md,
 * Upstream contract. Bodies are `unknown` so tests can send malformed ones; every response has
 * already been checked against the OpenAPI document by {@link ContractHttp}.
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
  ) {}

  /** `POST {auth_url}/api/auth/oauth2/token` with the given form (spec 2.6). */
  requestToken(form: Record<string, string>): Promise<ContractResponse> {
    return this.http.send({
      server: this.servers.auth,
      method: 'POST',
      path: '/api/auth/oauth2/token',
      form,
    });
  }

  /** `POST {auth_url}/api/auth/oauth2/token` with a body of another media type. */
  requestTokenRaw(contentType: string, body: string): Promise<ContractResponse> {
    return this.http.send({
      server: this.servers.auth,
      method: 'POST',
      path: '/api/auth/oauth2/token',
      raw: { contentType, body },
    });
  }

  /** Obtains a token with the client credentials and keeps it for later calls (spec 5). */
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
    const token = TokenResponseSchema.parse(response.body);
    this.accessToken = token.access_token;
    return { accessToken: token.access_token, expiresInS: token.expires_in };
  }

  private call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { json?: unknown; query?: Record<string, string>; token?: string } = {},
  ): Promise<ContractResponse> {
    return this.http.send({
      server: this.servers.base,
      method,
      path,
      json: options.json,
      query: options.query,
      token: 'token' in options ? options.token : this.accessToken,
    });
  }

  listSites(options?: { token?: string }) {
    return this.call('GET', '/sites', options);
  }

  bindSite(siteId: string) {
    return this.call('POST', '/sites', { json: { siteId } });
  }

  unbindSite(siteId: string) {
    return this.call('DELETE', '/sites', { json: { siteId } });
  }

  /** `POST /device/{deviceId}/commands` (spec 4: singular `device`). */
  submitCommand(deviceId: string, command: DeviceCommand | unknown, options?: { token?: string }) {
    return this.call('POST', `/device/${segment(deviceId)}/commands`, {
      json: command,
      ...options,
    });
  }

  queryStatus(deviceId: string, commandId: string, options?: { token?: string }) {
    return this.call(
      'GET',
      `/devices/${segment(deviceId)}/commands/${segment(commandId)}`,
      options,
    );
  }

  cancelCommand(deviceId: string, commandId: string) {
    return this.call('PUT', `/devices/${segment(deviceId)}/commands/${segment(commandId)}/cancel`);
  }

  queryHistory(deviceId: string, query: Record<string, string>) {
    return this.call('GET', `/devices/${segment(deviceId)}/commands`, { query });
  }

  submitBatch(batch: BatchRequest | unknown) {
    return this.call('POST', '/devices/commands/batch', { json: batch });
  }

  cancelBatch(batchCommandId: string) {
    return this.call('PUT', `/devices/commands/batch/${segment(batchCommandId)}/cancel`);
  }
}
