/**
 * `npm run sandbox`: the sandbox upstream alone (src/sandbox/README.md), Europe under `/eu`,
 * Australia under `/au`, on `SANDBOX_HOST:SANDBOX_PORT` (default 127.0.0.1:8090).
 */
import type { AddressInfo } from 'node:net';
import { loggerOptions } from '#infra/logger.ts';
import { buildSandboxApp } from './app.ts';
import { parseSandboxEnv } from './env.ts';

const env = parseSandboxEnv(process.env);
const app = await buildSandboxApp({
  dataDir: env.dataDir,
  databaseUrl: env.databaseUrl,
  fixture: env.fixture,
  adminEnabled: env.adminEnabled,
  dialect: env.dialect,
  deviceRateLimitPerMinute: env.deviceRateLimitPerMinute,
  logger: loggerOptions('sandbox', process.env.LOG_LEVEL ?? 'warn'),
});
await app.listen({ host: env.host, port: env.port });
const { port } = app.server.address() as AddressInfo;
const host = env.host.includes(':') ? `[${env.host}]` : env.host;
console.log(
  `Sandbox upstream listening on http://${host}:${port} (Europe /eu/api/openapi/v1, Australia /au/api/openapi/v1, tokens at /{eu,au}/api/auth/oauth2/token; fixture ${env.fixture}; rate limit ${env.deviceRateLimitPerMinute === 0 ? 'off' : `${env.deviceRateLimitPerMinute} requests per device per minute`}; admin API ${env.adminEnabled ? 'on' : 'off'})`,
);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
