/**
 * Runs one BFF in a process of its own, for tests that kill it (the ledger's crash test).
 * Configuration comes as JSON in `BFF_PROCESS_CONFIG`; once listening on 127.0.0.1 (ephemeral
 * port) and its fleet job queue running, it prints `LISTENING <port>` on stdout. With `crashAfterUpstreamAnswer` it kills itself
 * with SIGKILL between the upstream's answer to a submission and the ledger's write.
 */
import type { AddressInfo } from 'node:net';
import { buildServerApp } from '#server/app.ts';
import type { FleetQueueOptions } from '#server/fleet/fleet-queue.ts';
import type { UpstreamRegion } from '#server/upstream/upstream-caller.ts';

export interface BffProcessConfig {
  dataDir: string;
  databaseUrl?: string;
  upstreams: { eu: UpstreamRegion; au: UpstreamRegion };
  ledgerLeaseMs?: number;
  crashAfterUpstreamAnswer?: boolean;
  /**
   * Kill the process with SIGKILL between the upstream's answer to this fleet job batch (counted
   * from 1 in this process) and the ledger's write.
   */
  crashAfterFleetBatch?: number;
  fleetQueue?: FleetQueueOptions;
  /** How long a device claimed for a read stays this BFF's, ms (`readModelLeaseMs`). */
  readModelLeaseMs?: number;
  /** The device budget of upstream calls per region, calls per rolling minute (default 2). */
  deviceCallsPerMinute?: { eu: number; au: number };
}

const config = JSON.parse(process.env.BFF_PROCESS_CONFIG ?? '{}') as BffProcessConfig;
let batchAnswers = 0;
const app = await buildServerApp({
  upstreams: config.upstreams,
  dataDir: config.dataDir,
  ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
  ...(config.deviceCallsPerMinute ? { deviceCallsPerMinute: config.deviceCallsPerMinute } : {}),
  testing: {
    ...(config.ledgerLeaseMs ? { ledgerLeaseMs: config.ledgerLeaseMs } : {}),
    ...(config.fleetQueue ? { fleetQueue: config.fleetQueue } : {}),
    ...(config.readModelLeaseMs ? { readModelLeaseMs: config.readModelLeaseMs } : {}),
    ledgerHooks: {
      afterUpstreamAnswer: (kind: string) => {
        if (kind === 'submit' && config.crashAfterUpstreamAnswer)
          process.kill(process.pid, 'SIGKILL');
        if (kind === 'batch') {
          batchAnswers += 1;
          if (batchAnswers === config.crashAfterFleetBatch) process.kill(process.pid, 'SIGKILL');
        }
      },
    },
  },
});
await app.listen({ host: '127.0.0.1', port: 0 });
await app.fleetJobsStarted();
process.stdout.write(`LISTENING ${(app.server.address() as AddressInfo).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
