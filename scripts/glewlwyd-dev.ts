/**
 * `npx tsx scripts/glewlwyd-dev.ts`: Debian's Glewlwyd set up for company sign-in
 * (test/support/glewlwyd.ts), for trying powerdeck against a second identity provider and for
 * the browser tests' `company-sign-in-glewlwyd` project. Needs the Debian packages `glewlwyd` and
 * `sqlite3`. Glewlwyd stops with this script and leaves nothing behind.
 *
 * GLEWLWYD_PORT (default 9190) is where its pages and API answer on 127.0.0.1 (Glewlwyd itself
 * listens on the port after it); GLEWLWYD_REDIRECT_ORIGIN (default http://127.0.0.1:8080) is
 * powerdeck's origin; GLEWLWYD_CLIENT_SECRET the client's secret (default: a random one with `-`
 * and `/`, as the secrets companies hand out may have); GLEWLWYD_LOG_LEVEL Glewlwyd's log level
 * (default WARNING).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  GLEWLWYD_ACCOUNTS,
  GLEWLWYD_CLIENT_ID,
  GLEWLWYD_PASSWORD,
  startGlewlwyd,
} from '#test/support/glewlwyd.ts';

const EnvSchema = z.object({
  GLEWLWYD_PORT: z.coerce.number().int().min(1).max(65534).default(9190),
  GLEWLWYD_REDIRECT_ORIGIN: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080'),
  GLEWLWYD_CLIENT_SECRET: z
    .string()
    .min(16)
    .default(() => `pd-${randomBytes(12).toString('base64url')}/${randomBytes(6).toString('hex')}`),
  GLEWLWYD_LOG_LEVEL: z.enum(['NONE', 'ERROR', 'WARNING', 'INFO', 'DEBUG']).default('WARNING'),
});

async function main(): Promise<void> {
  const env = EnvSchema.parse(process.env);
  const origin = new URL(env.GLEWLWYD_REDIRECT_ORIGIN).origin;
  const glewlwyd = await startGlewlwyd({
    port: env.GLEWLWYD_PORT,
    redirectOrigin: origin,
    clientSecret: env.GLEWLWYD_CLIENT_SECRET,
    logLevel: env.GLEWLWYD_LOG_LEVEL,
  });
  console.log(
    [
      '',
      `Glewlwyd ready at ${glewlwyd.issuer} (its admin pages: ${glewlwyd.adminUrl}, admin / password)`,
      '',
      'Start powerdeck against it with:',
      `  OIDC_ISSUER=${glewlwyd.issuer} OIDC_CLIENT_ID=${GLEWLWYD_CLIENT_ID} \\`,
      `  OIDC_CLIENT_SECRET='${env.GLEWLWYD_CLIENT_SECRET}' PUBLIC_ORIGIN=${origin} npm start`,
      '',
      `Accounts (password ${GLEWLWYD_PASSWORD}):`,
      ...Object.entries(GLEWLWYD_ACCOUNTS).map(
        ([login, account]) =>
          `  ${login.padEnd(11)} ${account.name.padEnd(15)} roles: ${account.role ?? '(none)'}`,
      ),
      '',
    ].join('\n'),
  );
  const stop = () => {
    void glewlwyd.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
