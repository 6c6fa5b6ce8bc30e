/**
 * A company identity provider for tests, demos and `npm run idp:dev`: `oidc-provider` (a
 * certified OpenID Provider nobody here wrote) on loopback, with one account per powerdeck role
 * and one without a role. Its sign-in page is oidc-provider's development page: any password
 * is accepted for a known account name, so it must never face a network.
 *
 * ```ts
 * const idp = await startTestIdp({ port: 0, redirectOrigins: ['http://127.0.0.1:8080'] });
 * // OIDC_ISSUER=idp.issuer OIDC_CLIENT_ID=TEST_IDP_CLIENT.clientId ...
 * await idp.close();
 * ```
 */
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import Provider, { type Configuration } from 'oidc-provider';

/** The confidential client the BFF is registered as. */
export const TEST_IDP_CLIENT = {
  clientId: 'powerdeck',
  clientSecret: 'powerdeck-test-idp-secret',
} as const;

/**
 * The accounts, by the name typed on the IdP's sign-in page, which oidc-provider's development
 * page makes the account ID and so the subject (`sub`).
 */
export const TEST_IDP_ACCOUNTS = {
  viewer: {
    sub: 'viewer',
    name: 'Vera Viewer',
    email: 'vera.viewer@example.com',
    roles: ['viewer'],
  },
  dispatcher: {
    sub: 'dispatcher',
    name: 'Dan Dispatcher',
    email: 'dan.dispatcher@example.com',
    roles: ['dispatcher'],
  },
  admin: { sub: 'admin', name: 'Ada Admin', email: 'ada.admin@example.com', roles: ['admin'] },
  nobody: { sub: 'nobody', name: 'Noah Norole', email: 'noah@example.com', roles: [] },
} as const satisfies Record<
  string,
  { sub: string; name: string; email: string; roles: readonly string[] }
>;
export type TestAccountName = keyof typeof TEST_IDP_ACCOUNTS;

export interface TestIdp {
  /** Issuer identifier, e.g. `http://127.0.0.1:41234`: `OIDC_ISSUER`. */
  issuer: string;
  provider: Provider;
  close(): Promise<void>;
}

/** How a client may authenticate at the test IdP's token endpoint with its secret. */
export type TestIdpClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

/**
 * Starts the IdP on 127.0.0.1:`port` (0: any free port). `redirectOrigins` are the powerdeck
 * origins whose callback and sign-in page the client may redirect to.
 */
export async function startTestIdp(options: {
  port: number;
  redirectOrigins: readonly string[];
  /** ID token lifetime in seconds (default 3600). */
  idTokenTtlS?: number;
  /**
   * The client authentication methods the token endpoint accepts and its discovery lists
   * (`token_endpoint_auth_methods_supported`); powerdeck's client is registered with the first.
   * Without `client_secret_basic` among them, an `Authorization: Basic` header is refused with
   * 401 `invalid_client` (oidc-provider itself would take either for a secret). Default:
   * oidc-provider's list, the client registered with `client_secret_basic`.
   */
  clientAuthMethods?: readonly [TestIdpClientAuthMethod, ...TestIdpClientAuthMethod[]];
  /**
   * Refuses an `Authorization: Basic` header at the token endpoint (401 `invalid_client`) while
   * its discovery still lists `client_secret_basic`, as Glewlwyd does for a client secret that
   * form-encoding changes (it does not decode it).
   */
  basicAuthRefused?: boolean;
  /**
   * Answers a refused client authentication at the token endpoint with 403
   * `unauthorized_client` instead of 401 `invalid_client`, as Glewlwyd 2.7.5 does with its
   * default client settings (a wrong secret, or a Basic header whose secret form-encoding
   * changed).
   */
  clientAuthRefusedAsUnauthorized?: boolean;
  /** powerdeck's client secret at this IdP (default {@link TEST_IDP_CLIENT}'s). */
  clientSecret?: string;
  /**
   * Compares the HTTP Basic credentials at the token endpoint as sent, without form-decoding
   * them (RFC 6749 2.3.1 says to), as Glewlwyd 2.7.5 does: a secret that form-encoding changes
   * (`/`, `+`) is refused with 403 `unauthorized_client` when it comes form-encoded.
   */
  basicCredentialsNotDecoded?: boolean;
  /**
   * Sends the browser back to the post-logout redirect URI only when the logout request carries
   * a `state`, as Glewlwyd does; without one its logout ends on its own "signed out" page.
   */
  logoutReturnsOnlyWithState?: boolean;
}): Promise<TestIdp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  type Account = (typeof TEST_IDP_ACCOUNTS)[TestAccountName];
  const accounts: Account[] = Object.values(TEST_IDP_ACCOUNTS);
  const bySub = new Map<string, Account>(accounts.map((account) => [account.sub, account]));
  const byLogin = new Map<string, Account>(Object.entries(TEST_IDP_ACCOUNTS));

  const configuration: Configuration = {
    clients: [
      {
        client_id: TEST_IDP_CLIENT.clientId,
        client_secret: options.clientSecret ?? TEST_IDP_CLIENT.clientSecret,
        token_endpoint_auth_method: options.clientAuthMethods?.[0] ?? 'client_secret_basic',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: options.redirectOrigins.map(
          (origin) => `${origin}/api/session/oidc/callback`,
        ),
        post_logout_redirect_uris: options.redirectOrigins.map((origin) => `${origin}/sign-in`),
      },
    ],
    // The development sign-in page submits the typed name as the account ID; map it to `sub`.
    async findAccount(_ctx, id) {
      const account = byLogin.get(id) ?? bySub.get(id);
      if (!account) return undefined;
      return {
        accountId: account.sub,
        claims: () => ({
          sub: account.sub,
          name: account.name,
          email: account.email,
          email_verified: true,
          roles: [...account.roles],
        }),
      };
    },
    claims: {
      openid: ['sub'],
      profile: ['name', 'roles'],
      email: ['email', 'email_verified'],
    },
    // Profile claims (roles among them) in the ID token too, as many company IdPs send them.
    conformIdTokenClaims: false,
    ...(options.clientAuthMethods ? { clientAuthMethods: [...options.clientAuthMethods] } : {}),
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    ttl: { IdToken: options.idTokenTtlS ?? 3600 },
    // A first-party client: no consent page.
    async loadExistingGrant(ctx) {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (!session?.accountId || !client) return undefined;
      const grantId = session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: client.clientId,
        accountId: session.accountId,
      });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const refusesBasic =
    options.basicAuthRefused === true ||
    (options.clientAuthMethods !== undefined &&
      !options.clientAuthMethods.includes('client_secret_basic'));
  if (options.basicCredentialsNotDecoded)
    provider.use(async (ctx, next) => {
      const basic = /^basic (.+)$/i.exec(ctx.get('authorization'));
      if (ctx.path === '/token' && basic?.[1]) {
        const credentials = Buffer.from(basic[1], 'base64').toString('utf8');
        const colon = credentials.indexOf(':');
        const [id, secret] = [credentials.slice(0, colon), credentials.slice(colon + 1)];
        if (secret !== (options.clientSecret ?? TEST_IDP_CLIENT.clientSecret)) {
          ctx.status = 403;
          ctx.body = { error: 'unauthorized_client', error_description: 'Invalid client' };
          return;
        }
        // Accepted as sent; handed on form-encoded, as oidc-provider decodes it.
        const encoded = `${encodeURIComponent(id)}:${encodeURIComponent(secret)}`;
        ctx.req.headers.authorization = `Basic ${Buffer.from(encoded).toString('base64')}`;
      }
      await next();
    });
  if (options.clientAuthRefusedAsUnauthorized)
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { error?: unknown } | undefined;
      if (ctx.path === '/token' && ctx.status === 401 && body?.error === 'invalid_client') {
        ctx.remove('www-authenticate');
        ctx.status = 403;
        ctx.body = { error: 'unauthorized_client', error_description: 'Invalid client' };
      }
    });
  if (refusesBasic)
    provider.use(async (ctx, next) => {
      if (ctx.path === '/token' && /^basic /i.test(ctx.get('authorization'))) {
        ctx.status = 401;
        ctx.set('www-authenticate', `Basic realm="${issuer}", error="invalid_client"`);
        ctx.body = {
          error: 'invalid_client',
          error_description: 'client_secret_basic is not accepted here',
        };
        return;
      }
      await next();
    });
  if (options.logoutReturnsOnlyWithState)
    provider.use(async (ctx, next) => {
      // The logout request (RP-Initiated Logout 1.0, 2) without `state`: as if no
      // post_logout_redirect_uri had come, so the logout ends on the IdP's own page.
      if (ctx.path === '/session/end' && ctx.method === 'GET' && !ctx.query.state) {
        const query = { ...ctx.query };
        delete query.post_logout_redirect_uri;
        ctx.query = query;
      }
      await next();
    });
  // The development pages log "use only in development" warnings: expected here.
  server.on('request', provider.callback());
  return {
    issuer,
    provider,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
