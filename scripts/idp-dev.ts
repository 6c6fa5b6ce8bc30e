/**
 * `npm run idp:dev`: the test identity provider (oidc-provider on loopback) with a viewer, a
 * dispatcher, an administrator and an account without a role, for trying company sign-in
 * (README, Sign-in for teams) and for the browser tests. Never expose it: its sign-in page
 * accepts any password.
 *
 * IDP_PORT (default 9090) is where it listens on 127.0.0.1; IDP_REDIRECT_ORIGINS (default
 * http://127.0.0.1:8080, comma-separated) the powerdeck origins it sends people back to.
 * To play providers that differ from oidc-provider's defaults: IDP_CLIENT_AUTH_METHODS
 * (comma-separated, e.g. `client_secret_post`) are the only client authentications its token
 * endpoint accepts and its discovery lists, powerdeck's client registered with the first;
 * IDP_BASIC_REFUSED=1 refuses HTTP Basic at the token endpoint while the discovery still lists
 * it, and IDP_LOGOUT_NEEDS_STATE=1 sends the browser back after logout only when `state` is
 * sent, as Glewlwyd does.
 */
import { z } from 'zod';
import { TEST_IDP_ACCOUNTS, TEST_IDP_CLIENT, startTestIdp } from '#test/support/test-idp.ts';

const ClientAuthMethodSchema = z.enum(['client_secret_basic', 'client_secret_post']);

const EnvSchema = z.object({
  IDP_PORT: z.coerce.number().int().min(1).max(65535).default(9090),
  IDP_REDIRECT_ORIGINS: z
    .string()
    .default('http://127.0.0.1:8080')
    .transform((value) => value.split(',').map((origin) => origin.trim()))
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1)),
  IDP_CLIENT_AUTH_METHODS: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined || value.trim() === ''
        ? undefined
        : value.split(',').map((method) => method.trim()),
    )
    .pipe(z.tuple([ClientAuthMethodSchema], ClientAuthMethodSchema).optional()),
  IDP_BASIC_REFUSED: z
    .enum(['0', '1', ''])
    .default('')
    .transform((value) => value === '1'),
  IDP_LOGOUT_NEEDS_STATE: z
    .enum(['0', '1', ''])
    .default('')
    .transform((value) => value === '1'),
});

async function main(): Promise<void> {
  const env = EnvSchema.parse(process.env);
  const idp = await startTestIdp({
    port: env.IDP_PORT,
    redirectOrigins: env.IDP_REDIRECT_ORIGINS,
    ...(env.IDP_CLIENT_AUTH_METHODS ? { clientAuthMethods: env.IDP_CLIENT_AUTH_METHODS } : {}),
    basicAuthRefused: env.IDP_BASIC_REFUSED,
    logoutReturnsOnlyWithState: env.IDP_LOGOUT_NEEDS_STATE,
  });
  console.log(
    [
      '',
      `Test identity provider ready at ${idp.issuer}`,
      `  token endpoint accepts: ${env.IDP_CLIENT_AUTH_METHODS?.join(', ') ?? 'every method (client registered with client_secret_basic)'}${env.IDP_BASIC_REFUSED ? ', but refuses HTTP Basic' : ''}`,
      `  after logout, returns to powerdeck: ${env.IDP_LOGOUT_NEEDS_STATE ? 'only when state is sent' : 'always'}`,
      '',
      'Start powerdeck against it with:',
      `  OIDC_ISSUER=${idp.issuer} OIDC_CLIENT_ID=${TEST_IDP_CLIENT.clientId} \\`,
      `  OIDC_CLIENT_SECRET=${TEST_IDP_CLIENT.clientSecret} PUBLIC_ORIGIN=${env.IDP_REDIRECT_ORIGINS[0]} npm start`,
      '',
      'Accounts (type the name, any password):',
      ...Object.entries(TEST_IDP_ACCOUNTS).map(
        ([login, account]) =>
          `  ${login.padEnd(11)} ${account.name.padEnd(15)} roles: ${account.roles.join(', ') || '(none)'}`,
      ),
      '',
    ].join('\n'),
  );
  const stop = () => {
    void idp.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
