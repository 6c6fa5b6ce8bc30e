/**
 * The BFF in its own process for the bench (issue 8), configured like production by
 * `parseServerEnv` (upstream URLs point at the bench's sandbox), serving the SPA from
 * `STATIC_DIR`. Prints `READY <port>` once it listens.
 */
import { openDatabase } from '../../src/infra/database.ts';
import { loggerOptions } from '../../src/infra/logger.ts';
import { buildServerApp } from '../../src/server/app.ts';
import { parseServerEnv } from '../../src/server/env.ts';

const env = parseServerEnv(process.env);
const staticDir = process.env.STATIC_DIR;
if (!staticDir) throw new Error('STATIC_DIR is required');

const database = await openDatabase({ dataDir: env.dataDir, databaseUrl: env.databaseUrl });
const app = await buildServerApp({
  ...env,
  staticDir,
  database,
  logger: loggerOptions('bff', 'warn'),
});
await app.listen({ host: env.host, port: env.port });
console.log(`READY ${env.port}`);

const stop = () =>
  void app
    .close()
    .then(() => database.close())
    .then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
