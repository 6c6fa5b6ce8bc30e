/** A fleet job as the fleet runner's unit tests start from: stored, not yet run. */
import { randomUUID } from 'node:crypto';
import { sealingContext } from '../../fleet/fleet-runner.ts';
import type { FleetStore } from '../../fleet/fleet-store.ts';
import type { SecretBox } from '../../session/secret-box.ts';

/** The command every test job sends: 3 kW for an hour, 2026-12-01 10:00-11:00 UTC. */
const FLEET_TEST_COMMAND = {
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: '2026-12-01T10:00:00Z',
  endTime: '2026-12-01T11:00:00Z',
};

/**
 * Stores a job of the demo Europe account with one batch of `BAT-1` and `BAT-2` (50 a batch, 60
 * batches a minute, no abort), its secret sealed with `box`, made at `nowMs` (epoch ms).
 *
 * @returns the job's id.
 */
export async function createTwoDeviceJob(
  store: FleetStore,
  box: SecretBox,
  nowMs: number,
): Promise<string> {
  const id = randomUUID();
  await store.create({
    id,
    owner: { region: 'eu', clientId: 'demo-eu' },
    secretCiphertext: box.seal('demo-eu-secret', sealingContext(id)),
    command: FLEET_TEST_COMMAND,
    rollout: { batchSize: 50, batchesPerMinute: 60, abortPercent: 100 },
    batches: [{ deviceIds: ['BAT-1', 'BAT-2'] }],
    nowMs,
  });
  return id;
}
