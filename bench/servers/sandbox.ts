/**
 * The sandbox upstream in its own process for the bench: fixture from
 * `SANDBOX_FIXTURE` (default `large`), state in `DATA_DIR`, on `127.0.0.1:SANDBOX_PORT`.
 * Prints `READY <port>` once it listens.
 */
import { z } from 'zod';
import { loggerOptions } from '../../src/infra/logger.ts';
import { buildSandboxApp } from '../../src/sandbox/app.ts';

const env = z
  .object({
    SANDBOX_PORT: z.coerce.number().int().min(1).max(65535),
    SANDBOX_FIXTURE: z.enum(['demo', 'large']).default('large'),
    DATA_DIR: z.string().min(1),
  })
  .parse(process.env);

const app = await buildSandboxApp({
  dataDir: env.DATA_DIR,
  fixture: env.SANDBOX_FIXTURE,
  adminEnabled: true,
  // The bench measures what the BFF adds to each request against a pass-through proxy, thousands
  // of requests about a few devices: the vendor's limit would refuse nearly all of them. The
  // limit and the BFF's budget under it are measured by test/integration/read-model-budget.test.ts.
  deviceRateLimitPerMinute: 0,
  logger: loggerOptions('sandbox', 'warn'),
});
await app.listen({ host: '127.0.0.1', port: env.SANDBOX_PORT });
console.log(`READY ${env.SANDBOX_PORT}`);

const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
