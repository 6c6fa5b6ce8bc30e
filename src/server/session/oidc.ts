import * as client from 'openid-client';
import { z } from 'zod';
import { highestRole, type Role } from '../../domain/roles.ts';
import type { OidcEnv } from '../env.ts';
import { isLoopback } from '../env.ts';
import type { OperatorIdentity } from './session-store.ts';

/** Path of the redirect URI under `PUBLIC_ORIGIN` (registered at the IdP by an administrator). */
export const OIDC_CALLBACK_PATH = '/api/session/oidc/callback';
/** Scopes asked for (OpenID Connect Core 1.0, 5.4). */
export const OIDC_SCOPES = 'openid profile email';

/**
 * What one sign-in attempt must remember between the redirect to the IdP and its return: the
 * `state` (RFC 6749 10.12), the `nonce` (OIDC Core 3.1.2.1) and the PKCE verifier (RFC 7636),
 * and the region the operator chose.
 */
export const OidcTransactionSchema = z.strictObject({
  state: z.string().min(1),
  nonce: z.string().min(1),
  codeVerifier: z.string().min(43).max(128),
  region: z.enum(['eu', 'au']),
  /** When the attempt started, epoch ms: older than ten minutes is refused. */
  startedAtMs: z.number().int(),
});
export type OidcTransaction = z.infer<typeof OidcTransactionSchema>;

/** How long an operator may take at the IdP before the attempt is refused, ms. */
export const OIDC_TRANSACTION_MAX_AGE_MS = 10 * 60 * 1000;

/** Why a company sign-in was refused; each has its page (`oidc-routes.ts`). */
export type OidcRefusal =
  | 'idp_unreachable'
  | 'expired_attempt'
  | 'idp_error'
  | 'response_mismatch'
  | 'id_token_invalid'
  | 'no_role';

/** A company sign-in the BFF refused, with what went wrong for the log (never a token). */
export class OidcSignInError extends Error {
  override readonly name = 'OidcSignInError';
  readonly refusal: OidcRefusal;
  /** The IdP's or openid-client's error code, for the log. */
  readonly reason: string | undefined;

  constructor(refusal: OidcRefusal, message: string, reason?: string) {
    super(message);
    this.refusal = refusal;
    this.reason = reason;
  }
}

/** Claims the BFF reads of the ID token or the userinfo answer (OIDC Core 5.1). */
const IdentityClaimsSchema = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1),
  name: z.string().max(200).optional().catch(undefined),
  preferred_username: z.string().max(200).optional().catch(undefined),
  email: z.string().max(320).optional().catch(undefined),
});

/** A role claim: a list of strings, or one string (some IdPs send a single value bare). */
const RolesClaimSchema = z
  .union([z.array(z.string()), z.string().transform((value) => [value])])
  .optional()
  .catch(undefined);

/** What {@link OidcClient} needs besides the `OIDC_*` settings. */
export interface OidcClientOptions {
  /** `PUBLIC_ORIGIN`: the redirect URI and the post-logout redirect are under it. */
  publicOrigin: string;
  /** The BFF's clock, epoch ms (tests move it; ID token times are checked against it). */
  now: () => number;
  /** Replaces `fetch` for every request to the IdP (tests put a relay in between). */
  fetch?: client.CustomFetch | undefined;
}

/**
 * The BFF as a confidential OpenID Connect client (docs/security.md, Company sign-in): discovery,
 * the authorization request with PKCE (S256), `state` and `nonce`, the code exchange
 * authenticated with `client_secret_basic`, ID token validation (signature, issuer, audience,
 * expiry, nonce; all by openid-client), the operator's role from the configured claim, and the
 * RP-initiated logout URL (OpenID Connect RP-Initiated Logout 1.0) where the IdP offers one.
 */
export class OidcClient {
  readonly #env: OidcEnv;
  readonly #options: OidcClientOptions;
  #server: Promise<client.ServerMetadata> | undefined;
  #jwks: client.ExportedJWKSCache | undefined;

  constructor(env: OidcEnv, options: OidcClientOptions) {
    this.#env = env;
    this.#options = options;
  }

  get redirectUri(): string {
    return `${this.#options.publicOrigin}${OIDC_CALLBACK_PATH}`;
  }

  /**
   * Starts a sign-in: the IdP's authorization URL and what the callback must check.
   *
   * @throws OidcSignInError `idp_unreachable` when discovery fails.
   */
  async start(
    region: OidcTransaction['region'],
  ): Promise<{ url: URL; transaction: OidcTransaction }> {
    const config = await this.#config();
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

  /**
   * Completes a sign-in from the IdP's redirect (`currentUrl`, as the browser asked for it):
   * checks `state`, exchanges the code with the PKCE verifier, validates the ID token and its
   * `nonce`, reads the identity and the role.
   *
   * @throws OidcSignInError with the refusal that names what failed.
   */
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
      throw new OidcSignInError('idp_error', 'the identity provider answered an error', idpError);
    const config = await this.#config();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: transaction.codeVerifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw classify(error);
    } finally {
      this.#jwks = client.getJwksCache(config) ?? this.#jwks;
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
      // Many IdPs put profile claims and custom ones only in the userinfo answer (OIDC Core 5.4).
      const info = await this.#userInfo(config, tokens.access_token, identity.data.sub);
      roleValues ??= RolesClaimSchema.parse(info[this.#env.rolesClaim]);
      const more = IdentityClaimsSchema.partial().safeParse(info);
      if (more.success) {
        name ??= more.data.name ?? more.data.preferred_username;
        email ??= more.data.email;
      }
    }
    const role: Role | undefined = highestRole(roleValues ?? [], this.#env.roleNames);
    if (!role)
      throw new OidcSignInError(
        'no_role',
        `the ${this.#env.rolesClaim} claim holds none of the configured role values`,
      );
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

  /**
   * Where the browser goes to end the IdP's session too, or undefined when the IdP has no
   * `end_session_endpoint` (or cannot be reached now: the BFF session ends anyway).
   */
  async logoutUrl(idToken: string | undefined): Promise<string | undefined> {
    let config: client.Configuration;
    try {
      config = await this.#config();
    } catch {
      return undefined;
    }
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return client
      .buildEndSessionUrl(config, {
        post_logout_redirect_uri: `${this.#options.publicOrigin}/sign-in`,
        ...(idToken ? { id_token_hint: idToken } : {}),
      })
      .toString();
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

  /**
   * A configuration on the discovered metadata whose clock is the BFF's (`clockSkew`, seconds),
   * so ID token times are judged on the same clock as sessions.
   */
  async #config(): Promise<client.Configuration> {
    const server = await this.#discover();
    const skewS = Math.round((this.#options.now() - Date.now()) / 1000);
    const config = new client.Configuration(
      server,
      this.#env.clientId,
      { client_secret: this.#env.clientSecret, [client.clockSkew]: skewS },
      client.ClientSecretBasic(this.#env.clientSecret),
    );
    this.#secure(config);
    if (this.#jwks) client.setJwksCache(config, this.#jwks);
    return config;
  }

  #secure(config: client.Configuration): void {
    // The ID token's signature is checked against the IdP's JWKS too, not only trusted for
    // coming over TLS from the token endpoint (OIDC Core 3.1.3.7 allows that shortcut): a
    // relay or a proxy that alters the token is caught.
    client.enableNonRepudiationChecks(config);
    // http only on loopback (the env refuses anything else): the test IdP.
    if (isLoopback(new URL(this.#env.issuer).hostname) && this.#env.issuer.startsWith('http:'))
      client.allowInsecureRequests(config);
    if (this.#options.fetch) config[client.customFetch] = this.#options.fetch;
  }

  /** Discovery once; a failed one is forgotten, so the next sign-in tries again. */
  #discover(): Promise<client.ServerMetadata> {
    this.#server ??= (async () => {
      const execute = this.#env.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [];
      const config = await client.discovery(
        new URL(this.#env.issuer),
        this.#env.clientId,
        this.#env.clientSecret,
        client.ClientSecretBasic(this.#env.clientSecret),
        { execute, ...(this.#options.fetch ? { [client.customFetch]: this.#options.fetch } : {}) },
      );
      return config.serverMetadata();
    })();
    return this.#server.catch((error: unknown) => {
      this.#server = undefined;
      throw new OidcSignInError(
        'idp_unreachable',
        'discovery at the issuer failed',
        error instanceof Error ? error.message : String(error),
      );
    });
  }
}

/**
 * Sorts openid-client's errors into refusals: the IdP's own error answers, a `state` or `nonce`
 * that is not the attempt's (oauth4webapi names the parameter in its message), an unreachable
 * IdP, and every other failed check of the ID token.
 */
function classify(error: unknown): OidcSignInError {
  if (error instanceof OidcSignInError) return error;
  if (error instanceof client.ResponseBodyError)
    return new OidcSignInError('idp_error', 'the token endpoint refused the code', error.error);
  if (error instanceof client.AuthorizationResponseError)
    return new OidcSignInError('idp_error', 'the identity provider answered an error', error.error);
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : undefined;
  const cause = (error as { cause?: unknown }).cause;
  const message = [error, cause]
    .map((part) => (part instanceof Error ? part.message : ''))
    .join('; ');
  if (/"(state|nonce)"/.test(message))
    return new OidcSignInError('response_mismatch', message, reason);
  if (error instanceof TypeError && /fetch failed/i.test(message))
    return new OidcSignInError('idp_unreachable', message);
  return new OidcSignInError('id_token_invalid', message, reason);
}
