import { SubmissionResponseSchema } from '../../src/domain/command.ts';
import type { BenchCommand } from './context.ts';
import { bffCall, type BffSession } from './http.ts';

const SITE_ID = 'PLANT-EU-100';
const HOUR_MS = 3_600_000;

/**
 * Binds the demo site PLANT-EU-100 and submits one command to each of its first `count` devices
 * through the BFF, windows a few days ahead so they stay `received` (DESIGN.md 3, fixture).
 */
export async function submitBenchCommands(
  session: BffSession,
  count: number,
): Promise<BenchCommand[]> {
  await bffCall(session, 'POST', '/api/sites', { siteId: SITE_ID });
  const base = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + 72 * HOUR_MS;
  const commands: BenchCommand[] = [];
  for (let i = 1; i <= count; i++) {
    const deviceId = `BAT-EU-100-${String(i).padStart(2, '0')}`;
    // A previous run on the same data may hold this slot: step an hour on 409 (window overlap).
    for (let attempt = 0; ; attempt++) {
      const startMs = base + attempt * HOUR_MS;
      try {
        const body = await bffCall(session, 'POST', `/api/device/${deviceId}/commands`, {
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: new Date(startMs).toISOString().replace('.000Z', 'Z'),
          endTime: new Date(startMs + HOUR_MS / 2).toISOString().replace('.000Z', 'Z'),
        });
        commands.push({ deviceId, commandId: SubmissionResponseSchema.parse(body).id });
        break;
      } catch (error) {
        if (attempt >= 5 || !String(error).includes('409')) throw error;
      }
    }
  }
  return commands;
}
