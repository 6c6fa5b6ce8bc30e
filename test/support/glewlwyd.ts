/**
 * Debian's Glewlwyd 2.7.5 (package `glewlwyd`) as a second identity provider for company sign-in,
 * set up through its admin API as an operator would: an OpenID Connect plugin signing with RS256,
 * the confidential client `powerdeck` and the people of {@link GLEWLWYD_ACCOUNTS}, their role in
 * the `roles` claim. Everything lives in a throwaway folder (its own config and sqlite database,
 * never /etc/glewlwyd); Glewlwyd runs as a child on 127.0.0.1 only.
 *
 * Debian builds Glewlwyd without a working web server for its pages (sign-in, consent,
 * end-session) and its README says to put one in front that serves /usr/share/glewlwyd/webapp and
 * passes /api and /config on: {@link startGlewlwyd} starts that front on `port` and Glewlwyd itself
 * on the port after it. What each setting is for: docs/decisions/004-company-sign-in.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  createReadStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';

/** Password of every account of {@link GLEWLWYD_ACCOUNTS}. */
export const GLEWLWYD_PASSWORD = 'powerdeck-password';

/**
 * The test IdP's people (test/support/test-idp.ts) by Glewlwyd login; `role` becomes the user
 * property `roles`. Glewlwyd's own administrator is `admin`, so powerdeck's signs in as `ada`.
 */
export const GLEWLWYD_ACCOUNTS = {
  viewer: { name: 'Vera Viewer', email: 'vera.viewer@example.com', role: 'viewer' },
  dispatcher: { name: 'Dan Dispatcher', email: 'dan.dispatcher@example.com', role: 'dispatcher' },
  ada: { name: 'Ada Admin', email: 'ada.admin@example.com', role: 'admin' },
  nobody: { name: 'Noah Norole', email: 'noah@example.com', role: undefined },
} as const satisfies Record<string, { name: string; email: string; role: string | undefined }>;

/** The client ID Glewlwyd knows powerdeck by. */
export const GLEWLWYD_CLIENT_ID = 'powerdeck';

export interface Glewlwyd {
  /** `OIDC_ISSUER`: `http://127.0.0.1:<port>/api/oidc`. */
  issuer: string;
  /** Where its admin pages are (`admin` / `password`). */
  adminUrl: string;
  close(): Promise<void>;
}

const WEBAPP = '/usr/share/glewlwyd/webapp';
const MIME: Record<string, string> = {
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
};

function glewlwydConfig(options: {
  port: number;
  externalUrl: string;
  database: string;
  logLevel: string;
}): string {
  return `port=${options.port}
bind_address="127.0.0.1"
external_url="${options.externalUrl}"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="console"
log_level="${options.logLevel}"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
max_post_size=16778240
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
hash_algorithm="SHA512"
database = { type = "sqlite3"; path = "${options.database}"; };
`;
}

/** The webapp's config.json: Debian links it to a folder under /etc/glewlwyd holding the file. */
function webappConfig(): Buffer {
  const link = path.join(WEBAPP, 'config.json');
  return readFileSync(statSync(link).isDirectory() ? path.join(link, 'config.json') : link);
}

/** Serves the webapp and passes /api and /config on to Glewlwyd, as Debian's README says. */
function startFront(port: number, glewlwydPort: number): Promise<http.Server> {
  const config = webappConfig();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    if (/^\/(api|config)\//.test(url.pathname)) {
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port: glewlwydPort,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502).end();
      });
      req.pipe(upstream);
      return;
    }
    if (url.pathname === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(config);
      return;
    }
    const file = path.join(
      WEBAPP,
      path.normalize(url.pathname === '/' ? '/index.html' : url.pathname),
    );
    if (!file.startsWith(WEBAPP + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** A cookie-carrying admin session on Glewlwyd's API. */
class AdminApi {
  #cookie = '';
  constructor(private readonly base: string) {}

  async call(method: string, apiPath: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.base}/api${apiPath}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.#cookie ? { cookie: this.#cookie } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.#cookie = setCookie.split(';')[0] ?? '';
    const text = await response.text();
    if (!response.ok)
      throw new Error(`Glewlwyd ${method} /api${apiPath}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  }
}

/** Adds `property` to the data-format of the `kind` module instance `database`, and restarts it. */
async function addProperty(
  api: AdminApi,
  kind: 'user' | 'client',
  property: string,
  format: Record<string, unknown>,
): Promise<void> {
  const module = z
    .object({ parameters: z.record(z.string(), z.unknown()) })
    .passthrough()
    .parse(await api.call('GET', `/mod/${kind}/database`));
  const dataFormat = z
    .record(z.string(), z.unknown())
    .parse(module.parameters['data-format'] ?? {});
  await api.call('PUT', `/mod/${kind}/database`, {
    ...module,
    parameters: {
      ...module.parameters,
      'data-format': { ...dataFormat, [property]: { read: true, write: true, ...format } },
    },
  });
  // An instance reads its parameters when it starts.
  await api.call('PUT', `/mod/${kind}/database/reset`);
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts Glewlwyd with its front on 127.0.0.1:`port` (Glewlwyd itself on `port + 1`) and sets it
 * up for powerdeck at `redirectOrigin` (its callback, and its sign-in page after logout), the
 * client's secret `clientSecret`. Needs the `glewlwyd` and `sqlite3` commands (Debian packages).
 *
 * @throws when Glewlwyd does not start or its admin API refuses a step (the child is stopped).
 */
export async function startGlewlwyd(options: {
  port: number;
  redirectOrigin: string;
  clientSecret: string;
  logLevel?: 'NONE' | 'ERROR' | 'WARNING' | 'INFO' | 'DEBUG';
}): Promise<Glewlwyd> {
  const origin = new URL(options.redirectOrigin).origin;
  const clientSecret = options.clientSecret;
  const glewlwydPort = options.port + 1;
  const externalUrl = `http://127.0.0.1:${options.port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'powerdeck-glewlwyd-'));
  const database = path.join(dir, 'glewlwyd.sqlite3');
  execFileSync('sqlite3', [database], {
    input: gunzipSync(readFileSync('/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz')),
  });
  const configFile = path.join(dir, 'glewlwyd.conf');
  writeFileSync(
    configFile,
    glewlwydConfig({
      port: glewlwydPort,
      externalUrl,
      database,
      logLevel: options.logLevel ?? 'WARNING',
    }),
  );
  // setpriv's parent-death signal stops Glewlwyd even when this process is killed outright.
  const child = spawn(
    'setpriv',
    ['--pdeathsig', 'TERM', 'glewlwyd', `--config-file=${configFile}`],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const front = await startFront(options.port, glewlwydPort);
  const close = async () => {
    front.close();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(`${externalUrl}/config/`, 20_000);
    const api = new AdminApi(externalUrl);
    await api.call('POST', '/auth/', { username: 'admin', password: 'password' });

    // The database modules keep only the properties their data-format lists: users need `roles`,
    // and the client the list of addresses the OIDC plugin accepts after logout
    // (`post_logout_redirect_uris`, which the init script's data-format lacks).
    await addProperty(api, 'user', 'roles', {
      multiple: false,
      'profile-read': false,
      'profile-write': false,
    });
    await addProperty(api, 'client', 'post_logout_redirect_uris', { multiple: true });

    // The OIDC plugin, signing with a fresh RSA key (RS256), the `roles` property as a claim.
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await api.call('POST', '/mod/plugin/', {
      module: 'oidc',
      name: 'oidc',
      display_name: 'OpenID Connect',
      parameters: {
        iss: `${externalUrl}/api/oidc`,
        'session-cookie-name': 'GLEWLWYD2_OIDC_SID',
        'session-cookie-expiration': 2419200,
        'jwt-type': 'rsa',
        'jwt-key-size': '256',
        key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        cert: publicKey.export({ type: 'spki', format: 'pem' }),
        'access-token-duration': 3600,
        'refresh-token-duration': 1209600,
        'code-duration': 600,
        'refresh-token-rolling': true,
        'allow-non-oidc': false,
        'auth-type-code-enabled': true,
        'auth-type-token-enabled': false,
        'auth-type-id-token-enabled': false,
        'auth-type-none-enabled': false,
        'auth-type-password-enabled': false,
        'auth-type-client-enabled': false,
        'auth-type-refresh-enabled': true,
        // powerdeck sends a PKCE challenge (S256): without this, Glewlwyd answers invalid_request.
        'pkce-allowed': true,
        'pkce-method-plain-allowed': false,
        'service-documentation': '',
        'op-policy-uri': '',
        'op-tos-uri': '',
        'jwks-show': true,
        'name-claim': 'mandatory',
        'email-claim': 'mandatory',
        'scope-claim': 'no',
        claims: [
          { name: 'roles', 'user-property': 'roles', type: 'string', mandatory: true, scope: [] },
        ],
        'session-management-allowed': true,
        // Its end-session page reads the session through the front-channel logout API, which
        // answers 400 unless front-channel logout is allowed: without it, no way back after logout.
        'front-channel-logout-allowed': true,
        'subject-type': 'public',
      },
    });

    await api.call('POST', '/client/', {
      client_id: GLEWLWYD_CLIENT_ID,
      name: 'powerdeck',
      confidential: true,
      enabled: true,
      // Glewlwyd checks a client's secret against its `password` (`client_secret` is only the key
      // of HS256 client assertions).
      password: clientSecret,
      redirect_uri: [`${origin}/api/session/oidc/callback`],
      post_logout_redirect_uris: [`${origin}/sign-in`],
      authorization_type: ['code', 'refresh_token'],
      // Without this list the token endpoint refuses every secret (403 unauthorized_client). The
      // admin page proposes `client_secret_basic` alone, kept here: Glewlwyd compares the HTTP
      // Basic credentials without form-decoding them (RFC 6749 2.3.1), and powerdeck sends them
      // as they are when decoding would not change them, so the secret's `/` passes
      // (docs/decisions/004).
      token_endpoint_auth_method: ['client_secret_basic'],
      scope: [],
    });
    for (const [username, account] of Object.entries(GLEWLWYD_ACCOUNTS)) {
      await api.call('POST', '/user/', {
        username,
        name: account.name,
        email: account.email,
        password: GLEWLWYD_PASSWORD,
        scope: ['openid'],
        enabled: true,
        ...(account.role ? { roles: account.role } : {}),
      });
    }
    const issuer = `${externalUrl}/api/oidc`;
    await waitFor(`${issuer}/.well-known/openid-configuration`, 10_000);
    return { issuer, adminUrl: `${externalUrl}/index.html`, close };
  } catch (error) {
    await close();
    throw error;
  }
}
