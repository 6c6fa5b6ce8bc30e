import * as client from 'openid-client';
import { z } from 'zod';
import { highestRole, type Role } from '#domain/roles.ts';
import {
  OIDC_CLIENT_AUTH_METHODS,
  isLoopback,
  type OidcClientAuthMethod,
  type OidcEnv,
} from '../env.ts';
import type { OperatorIdentity } from './session-store.ts';
import { OidcSignInError, authorizationRefusal, classify, describe } from './oidc-refusals.ts';

/** Under `PUBLIC_ORIGIN`; registered at the IdP by an administrator. */
export const OIDC_CALLBACK_PATH = '/api/session/oidc/callback';
/** The sign-in page, which checks the `state` the IdP brings back. */
export const OIDC_POST_LOGOUT_PATH = '/sign-in';
/** OpenID Connect Core 1.0, 5.4. */
export const OIDC_SCOPES = 'openid profile email';

/** `state` (RFC 6749 10.12), `nonce` (OIDC Core 3.1.2.1) and the PKCE verifier (RFC 7636). */
export const OidcTransactionSchema = z.strictObject({
  state: z.string().min(1),
  nonce: z.string().min(1),
  codeVerifier: z.string().min(43).max(128),
  region: z.enum(['eu', 'au']),
  startedAtMs: z.number().int(),
});
export type OidcTransaction = z.infer<typeof OidcTransactionSchema>;

export const OIDC_TRANSACTION_MAX_AGE_MS = 10 * 60 * 1000;

/** Before the browser is sent there, ms. */
export const OIDC_REACHABLE_TIMEOUT_MS = 3000;

export interface OidcLog {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * `OIDC_TOKEN_ENDPOINT_AUTH_METHOD` when set, else the first of {@link OIDC_CLIENT_AUTH_METHODS}
 * the discovery lists, else `client_secret_basic` (OpenID Connect Discovery 1.0, 3).
 *
 * @returns undefined when the provider lists methods but none usable with a client secret.
 */
export function chooseClientAuthMethod(
  supported: readonly string[] | undefined,
  configured: OidcClientAuthMethod | undefined,
): OidcClientAuthMethod | undefined {
  if (configured) return configured;
  if (supported === undefined || supported.length === 0) return 'client_secret_basic';
  return OIDC_CLIENT_AUTH_METHODS.find((method) => supported.includes(method));
}

/** OIDC Core 5.1. */
const IdentityClaimsSchema = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1),
  name: z.string().max(200).optional().catch(undefined),
  preferred_username: z.string().max(200).optional().catch(undefined),
  email: z.string().max(320).optional().catch(undefined),
});

/** Some IdPs send a single value bare. */
const RolesClaimSchema = z
  .union([z.array(z.string()), z.string().transform((value) => [value])])
  .optional()
  .catch(undefined);

export interface OidcClientOptions {
  publicOrigin: string;
  /** ID token times are checked against it; tests move it. */
  now: () => number;
  /** Tests put a relay in between. */
  fetch?: client.CustomFetch | undefined;
  log?: OidcLog | undefined;
}

interface Discovered {
  server: client.ServerMetadata;
  clientAuth: OidcClientAuthMethod;
}

/**
 * The BFF as a confidential OpenID Connect client (docs/security.md, Company sign-in); openid-client
 * validates the ID token.
 */
export class OidcClient {
  readonly #env: OidcEnv;
  readonly #options: OidcClientOptions;
  #discovered: Promise<Discovered> | undefined;
  /** After the chosen one was refused (see `finish`). */
  #learnedClientAuth: OidcClientAuthMethod | undefined;
  #jwks: client.ExportedJWKSCache | undefined;

  constructor(env: OidcEnv, options: OidcClientOptions) {
    this.#env = env;
    this.#options = options;
  }

  get redirectUri(): string {
    return `${this.#options.publicOrigin}${OIDC_CALLBACK_PATH}`;
  }

  /** @throws OidcSignInError `idp_unreachable` when discovery fails. */
  async start(
    region: OidcTransaction['region'],
  ): Promise<{ url: URL; transaction: OidcTransaction }> {
    const discoveredBefore = this.#discovered !== undefined;
    const config = await this.#config();
    // Discovery is cached; an IdP down since would strand the browser on its error page, so ask first.
    if (discoveredBefore) await this.#ensureReachable();
    const codeVerifier = client.randomPKCECodeVerifier();
    const transaction: OidcTransaction = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier,
      region,
      startedAtMs: this.#options.now(),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: OIDC_SCOPES,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
    });
    return { url, transaction };
  }

  /** @throws OidcSignInError with the refusal that names what failed. */
  async finish(
    currentUrl: URL,
    transaction: OidcTransaction,
  ): Promise<{ operator: OperatorIdentity; idToken: string }> {
    const nowMs = this.#options.now();
    if (
      nowMs - transaction.startedAtMs > OIDC_TRANSACTION_MAX_AGE_MS ||
      nowMs < transaction.startedAtMs
    )
      throw new OidcSignInError('expired_attempt', 'the sign-in attempt is older than ten minutes');
    const idpError = currentUrl.searchParams.get('error');
    if (idpError !== null)
      throw new OidcSignInError(
        authorizationRefusal(idpError),
        'the identity provider answered an error instead of a code',
        idpError,
        describe(currentUrl.searchParams.get('error_description')),
      );
    let config = await this.#config();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await this.#exchange(config, currentUrl, transaction);
    } catch (error) {
      const refusal = classify(error);
      const other =
        refusal.refusal === 'invalid_client' ? await this.#otherClientAuth() : undefined;
      if (!other) throw refusal;
      // A provider may list a method and still fail it (Glewlwyd lists client_secret_basic but does not
      // decode a form-encoded secret): try the other listed one once, and keep it when it works.
      const refused = config.clientMetadata().token_endpoint_auth_method;
      this.#options.log?.warn(
        { refused, trying: other, reason: refusal.reason, ...refusal.details },
        'the token endpoint refused the client authentication; trying the other one the provider lists',
      );
      config = await this.#config(other);
      try {
        tokens = await this.#exchange(config, currentUrl, transaction);
      } catch (retryError) {
        throw classify(retryError);
      }
      this.#learnedClientAuth = other;
      this.#options.log?.warn(
        { refused, clientAuth: other },
        'company sign-in authenticates at the token endpoint with the other method from now on; set OIDC_TOKEN_ENDPOINT_AUTH_METHOD to start with it',
      );
    }
    const idToken = tokens.id_token;
    const claims = tokens.claims();
    if (idToken === undefined || claims === undefined)
      throw new OidcSignInError('id_token_invalid', 'the token answer has no ID token');
    const identity = IdentityClaimsSchema.safeParse(claims);
    if (!identity.success)
      throw new OidcSignInError('id_token_invalid', 'the ID token lacks iss or sub');
    let roleValues = RolesClaimSchema.parse(claims[this.#env.rolesClaim]);
    let { name, email } = identity.data;
    name ??= identity.data.preferred_username;
    if (roleValues === undefined || name === undefined || email === undefined) {
      // Many IdPs put profile and custom claims only in the userinfo answer (OIDC Core 5.4).
      const info = await this.#userInfo(config, tokens.access_token, identity.data.sub);
      roleValues ??= RolesClaimSchema.parse(info[this.#env.rolesClaim]);
      const more = IdentityClaimsSchema.partial().safeParse(info);
      if (more.success) {
        name ??= more.data.name ?? more.data.preferred_username;
        email ??= more.data.email;
      }
    }
    const role: Role | undefined = highestRole(roleValues ?? [], this.#env.roleNames);
    if (!role) {
      const refusal = new OidcSignInError(
        'no_role',
        `the ${this.#env.rolesClaim} claim holds none of the configured role values`,
        undefined,
        { subject: identity.data.sub },
      );
      refusal.signOutHint = idToken;
      throw refusal;
    }
    return {
      operator: {
        issuer: identity.data.iss,
        subject: identity.data.sub,
        ...(name ? { name } : {}),
        ...(email ? { email } : {}),
        role,
      },
      idToken,
    };
  }

  get postLogoutRedirectUri(): string {
    return `${this.#options.publicOrigin}${OIDC_POST_LOGOUT_PATH}`;
  }

  /**
   * OpenID Connect RP-Initiated Logout 1.0. A fresh `state` always: Glewlwyd sends the browser back
   * only with one. Undefined without `end_session_endpoint` or when unreachable (the session ends anyway).
   */
  async logoutUrl(
    idToken: string | undefined,
  ): Promise<{ url: string; state: string } | undefined> {
    let config: client.Configuration;
    try {
      config = await this.#config();
    } catch {
      return undefined;
    }
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    const state = client.randomState();
    const url = client.buildEndSessionUrl(config, {
      post_logout_redirect_uri: this.postLogoutRedirectUri,
      state,
      ...(idToken ? { id_token_hint: idToken } : {}),
    });
    return { url: url.toString(), state };
  }

  async #exchange(config: client.Configuration, currentUrl: URL, transaction: OidcTransaction) {
    try {
      return await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: transaction.codeVerifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
    } finally {
      this.#jwks = client.getJwksCache(config) ?? this.#jwks;
    }
  }

  /** @throws OidcSignInError `idp_unreachable`, or `idp_unavailable` for a server error. */
  async #ensureReachable(): Promise<void> {
    const url = new URL(
      '.well-known/openid-configuration',
      `${this.#env.issuer.replace(/\/$/, '')}/`,
    );
    const fetchFn = this.#options.fetch ?? fetch;
    let status: number;
    try {
      const response = await fetchFn(url.toString(), {
        method: 'GET',
        body: undefined,
        headers: { accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(OIDC_REACHABLE_TIMEOUT_MS),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      throw new OidcSignInError(
        'idp_unreachable',
        'the identity provider did not answer before the sign-in',
        error instanceof Error ? error.message : String(error),
      );
    }
    if (status >= 500)
      throw new OidcSignInError(
        'idp_unavailable',
        'the identity provider answered a server error before the sign-in',
        undefined,
        { status },
      );
  }

  /** Undefined when `OIDC_TOKEN_ENDPOINT_AUTH_METHOD` chose one: the operator's choice stands. */
  async #otherClientAuth(): Promise<OidcClientAuthMethod | undefined> {
    if (this.#env.tokenEndpointAuthMethod) return undefined;
    const { server, clientAuth } = await this.#discover();
    const current = this.#learnedClientAuth ?? clientAuth;
    const listed = server.token_endpoint_auth_methods_supported ?? [];
    return OIDC_CLIENT_AUTH_METHODS.find((method) => method !== current && listed.includes(method));
  }

  async #userInfo(
    config: client.Configuration,
    accessToken: string,
    subject: string,
  ): Promise<Record<string, unknown>> {
    try {
      return await client.fetchUserInfo(config, accessToken, subject);
    } catch (error) {
      throw classify(error);
    }
  }

  /** On the BFF's clock (`clockSkew`), so ID token times are judged as sessions are. */
  async #config(method?: OidcClientAuthMethod): Promise<client.Configuration> {
    const discovered = await this.#discover();
    const server = discovered.server;
    const clientAuth = method ?? this.#learnedClientAuth ?? discovered.clientAuth;
    const skewS = Math.round((this.#options.now() - Date.now()) / 1000);
    const config = new client.Configuration(
      server,
      this.#env.clientId,
      {
        client_secret: this.#env.clientSecret,
        token_endpoint_auth_method: clientAuth,
        [client.clockSkew]: skewS,
      },
      clientAuth === 'client_secret_post'
        ? client.ClientSecretPost(this.#env.clientSecret)
        : clientSecretBasic(this.#env.clientSecret),
    );
    this.#secure(config);
    if (this.#jwks) client.setJwksCache(config, this.#jwks);
    return config;
  }

  #secure(config: client.Configuration): void {
    // Signature checked against the JWKS too, not trusted for TLS alone (OIDC Core 3.1.3.7): a relay
    // that alters the token is caught.
    client.enableNonRepudiationChecks(config);
    // The env allows http only on loopback: the test IdP.
    if (isLoopback(new URL(this.#env.issuer).hostname) && this.#env.issuer.startsWith('http:'))
      client.allowInsecureRequests(config);
    if (this.#options.fetch) config[client.customFetch] = this.#options.fetch;
  }

  /**
   * A failed discovery is forgotten, so the next sign-in tries again.
   *
   * @throws OidcSignInError `idp_unreachable`, `client_auth_unsupported`.
   */
  #discover(): Promise<Discovered> {
    this.#discovered ??= (async () => {
      const execute = this.#env.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [];
      let server: client.ServerMetadata;
      try {
        const config = await client.discovery(
          new URL(this.#env.issuer),
          this.#env.clientId,
          undefined,
          client.None(),
          {
            execute,
            ...(this.#options.fetch ? { [client.customFetch]: this.#options.fetch } : {}),
          },
        );
        server = config.serverMetadata();
      } catch (error) {
        throw new OidcSignInError(
          'idp_unreachable',
          'discovery at the issuer failed',
          error instanceof Error ? error.message : String(error),
        );
      }
      const supported = server.token_endpoint_auth_methods_supported;
      const configured = this.#env.tokenEndpointAuthMethod;
      const clientAuth = chooseClientAuthMethod(supported, configured);
      const listed = { providerLists: supported ?? '(nothing: client_secret_basic by default)' };
      if (!clientAuth)
        throw new OidcSignInError(
          'client_auth_unsupported',
          `the provider lists no client authentication powerdeck can use (${OIDC_CLIENT_AUTH_METHODS.join(', ')}); set OIDC_TOKEN_ENDPOINT_AUTH_METHOD if it accepts one all the same`,
          undefined,
          listed,
        );
      if (configured && supported && !supported.includes(configured))
        this.#options.log?.warn(
          { clientAuth, ...listed },
          'company sign-in authenticates at the token endpoint as OIDC_TOKEN_ENDPOINT_AUTH_METHOD says, although the provider does not list that method',
        );
      else
        this.#options.log?.info(
          { clientAuth, configured: configured !== undefined, ...listed },
          'company sign-in authenticates at the token endpoint',
        );
      return { server, clientAuth };
    })();
    return this.#discovered.catch((error: unknown) => {
      this.#discovered = undefined;
      throw error;
    });
  }
}

/**
 * RFC 6749 2.3.1, sent as it is when form-decoding would not change it: Glewlwyd 2.7.5 does not
 * decode, so a secret with `/` sent as `%2F` was refused.
 */
function clientSecretBasic(clientSecret: string): client.ClientAuth {
  const byTheBook = client.ClientSecretBasic(clientSecret);
  const decodesToItself = (value: string) => /^[\x20-\x7e]*$/.test(value) && !/[%+]/.test(value);
  return (server, metadata, body, headers) => {
    const clientId = metadata.client_id;
    if (!decodesToItself(clientId) || clientId.includes(':') || !decodesToItself(clientSecret)) {
      byTheBook(server, metadata, body, headers);
      return;
    }
    const credentials = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    headers.set('authorization', `Basic ${credentials}`);
  };
}
