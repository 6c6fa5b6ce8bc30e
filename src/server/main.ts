/**
 * Runs the BFF alone against the configured upstream (`npm start` runs it together with the
 * sandbox). Finishes in-flight requests on SIGINT/SIGTERM before exiting.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { loggerOptions } from '#infra/logger.ts';
import { buildServerApp } from './app.ts';
import { parseServerEnv } from './env.ts';

async function main(): Promise<void> {
  const env = parseServerEnv(process.env);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const staticDir = path.join(root, 'dist', 'client');
  const app = await buildServerApp({
    ...env,
    ...(existsSync(path.join(staticDir, 'index.html')) ? { staticDir } : {}),
    logger: loggerOptions('bff'),
  });
  await app.listen({ host: env.host, port: env.port });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down after in-flight requests');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
