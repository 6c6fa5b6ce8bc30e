/**
 * The sandbox upstream in its own process for the bench: fixture from
 * `SANDBOX_FIXTURE` (default `large`), state in `DATA_DIR`, on `127.0.0.1:SANDBOX_PORT`, the
 * vendor's per-device limit `SANDBOX_RATE_LIMIT_PER_MINUTE` (default 0: off).
 * Prints `READY <port>` once it listens.
 */
import { z } from 'zod';
import { loggerOptions } from '#infra/logger.ts';
import { buildSandboxApp } from '#sandbox/app.ts';

const env = z
  .object({
    SANDBOX_PORT: z.coerce.number().int().min(1).max(65535),
    SANDBOX_FIXTURE: z.enum(['demo', 'large']).default('large'),
    DATA_DIR: z.string().min(1),
    // 0 (off) unless a group measures the vendor's limit (the `budget` group sets 2).
    SANDBOX_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(0),
  })
  .parse(process.env);

const app = await buildSandboxApp({
  dataDir: env.DATA_DIR,
  fixture: env.SANDBOX_FIXTURE,
  adminEnabled: true,
  // Off by default: the bench measures what the BFF adds to each request against a pass-through
  // proxy, thousands of requests about a few devices, which the vendor's limit would refuse. The
  // `budget` group turns it on to measure the BFF's budget under it (bench/figures/budget.ts).
  deviceRateLimitPerMinute: env.SANDBOX_RATE_LIMIT_PER_MINUTE,
  logger: loggerOptions('sandbox', 'warn'),
});
await app.listen({ host: '127.0.0.1', port: env.SANDBOX_PORT });
console.log(`READY ${env.SANDBOX_PORT}`);

const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
