/**
 * Runs one BFF in a process of its own, for tests that kill it (the ledger's crash test).
 * Configuration comes as JSON in `BFF_PROCESS_CONFIG`; once listening on 127.0.0.1 (ephemeral
 * port) it prints `LISTENING <port>` on stdout. With `crashAfterUpstreamAnswer` it kills itself
 * with SIGKILL between the upstream's answer to a submission and the ledger's write.
 */
import type { AddressInfo } from 'node:net';
import { buildServerApp } from '../../src/server/app.ts';
import type { UpstreamRegion } from '../../src/server/upstream/upstream-caller.ts';

export interface BffProcessConfig {
  dataDir: string;
  databaseUrl?: string;
  upstreams: { eu: UpstreamRegion; au: UpstreamRegion };
  ledgerLeaseMs?: number;
  crashAfterUpstreamAnswer?: boolean;
}

const config = JSON.parse(process.env.BFF_PROCESS_CONFIG ?? '{}') as BffProcessConfig;
const app = await buildServerApp({
  upstreams: config.upstreams,
  dataDir: config.dataDir,
  ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
  ...(config.ledgerLeaseMs ? { ledgerLeaseMs: config.ledgerLeaseMs } : {}),
  ...(config.crashAfterUpstreamAnswer
    ? {
        ledgerHooks: {
          afterUpstreamAnswer: (kind: string) => {
            if (kind === 'submit') process.kill(process.pid, 'SIGKILL');
          },
        },
      }
    : {}),
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`LISTENING ${(app.server.address() as AddressInfo).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
