/**
 * `npm start`: builds the SPA when needed, starts the sandbox upstream (unless a real upstream is
 * configured) and the BFF with the SPA, in one process on one embedded database (docs/architecture.md, Running it).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { openDatabase } from '#infra/database.ts';
import { loggerOptions } from '#infra/logger.ts';
import { buildSandboxApp } from '#sandbox/app.ts';
import { parseSandboxEnv } from '#sandbox/env.ts';
import { buildServerApp } from '#server/app.ts';
import { parseServerEnv } from '#server/env.ts';
import { buildSpaIfNeeded } from './build-spa-if-needed.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const LogEnvSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});

async function main(): Promise<void> {
  const startedAt = performance.now();
  const env = parseServerEnv(process.env);
  // The sandbox's own variables (src/sandbox/README.md); it listens on 127.0.0.1 with its admin
  // API whatever SANDBOX_HOST says, and shares the BFF's database.
  const sandboxEnv = parseSandboxEnv(process.env);
  const { LOG_LEVEL: logLevel } = LogEnvSchema.parse(process.env);
  const staticDir = path.join(root, 'dist', 'client');

  if (await buildSpaIfNeeded(root, staticDir)) console.log('Built the SPA into dist/client.');

  const database = await openDatabase({ dataDir: env.dataDir, databaseUrl: env.databaseUrl });
  const closers: Array<() => Promise<unknown>> = [];
  let upstreamClock: (() => number) | undefined;
  // The BFF is built after the sandbox; a reset before it exists has nothing to make it forget.
  let forgetUpstream: () => Promise<void> = async () => {};

  if (env.usesSandbox) {
    const sandbox = await buildSandboxApp({
      dataDir: env.dataDir,
      databaseUrl: env.databaseUrl,
      database,
      fixture: sandboxEnv.fixture,
      adminEnabled: true,
      // A reset sandbox has forgotten the calls the BFF spent of its devices' budget; so does the BFF.
      onReset: () => forgetUpstream(),
      dialect: sandboxEnv.dialect,
      deviceRateLimitPerMinute: sandboxEnv.deviceRateLimitPerMinute,
      logger: loggerOptions('sandbox', logLevel),
    });
    // The BFF's budget of upstream calls counts on the sandbox's clock, as the vendor's limit does
    // (docs/decisions/007-device-call-budget.md, section 1); the BFF never imports the sandbox.
    upstreamClock = () => sandbox.sandboxNow();
    await sandbox.listen({ host: '127.0.0.1', port: sandboxEnv.port });
    closers.push(() => sandbox.close());
  }

  const bff = await buildServerApp({
    ...env,
    staticDir,
    database,
    upstreamClock,
    logger: loggerOptions('bff', logLevel),
  });
  forgetUpstream = () => bff.forgetUpstream();
  await bff.listen({ host: env.host, port: env.port });
  closers.unshift(() => bff.close());

  const readyMs = Math.round(performance.now() - startedAt);
  const lines = [
    '',
    `powerdeck is ready at ${env.publicOrigin} (${readyMs} ms)`,
    env.usesSandbox
      ? [
          `Sandbox upstream: http://127.0.0.1:${sandboxEnv.port}/eu and /au (fixture ${sandboxEnv.fixture}; rate limit ${sandboxEnv.deviceRateLimitPerMinute === 0 ? 'off' : `${sandboxEnv.deviceRateLimitPerMinute} requests per device per minute`})`,
          'Demo credentials:',
          '  Europe     client ID demo-eu  secret demo-eu-secret  (sites PLANT-EU-001, PLANT-EU-002, PLANT-EU-100)',
          '  Australia  client ID demo-au  secret demo-au-secret  (site PLANT-AU-001)',
        ].join('\n')
      : `Upstream: Europe ${env.upstreams.eu.baseUrl}, Australia ${env.upstreams.au.baseUrl}`,
    ...(env.oidc
      ? [
          `Company sign-in through ${env.oidc.issuer} (roles claim "${env.oidc.rolesClaim}"); an administrator registers the vendor connections on the Connections page.`,
        ]
      : []),
    'Press Ctrl+C to stop.',
    '',
  ];
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    for (const close of closers) await close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
