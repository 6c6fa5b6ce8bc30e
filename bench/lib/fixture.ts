import { request } from 'undici';
import { MAX_BATCH_DEVICES } from '#domain/batch.ts';
import { SubmissionResponseSchema } from '#domain/command.ts';
import { MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { slotOf } from '#domain/refresh-policy.ts';
import { BatchAcceptedSchema, HistoryPageSchema, MAX_PAGE_SIZE } from '#sandbox/vendor/schemas.ts';
import type { BenchCommand } from './context.ts';
import { bffCall, vendorPath, type BffSession } from './http.ts';

const SITE_ID = 'PLANT-EU-100';
const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * Binds the demo site PLANT-EU-100 and submits one command to each of its first `count` devices
 * through the BFF, windows a few days ahead so they stay `received`.
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
        const body = await bffCall(session, 'POST', `/api/devices/${deviceId}/commands`, {
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: iso(startMs),
          endTime: iso(startMs + HOUR_MS / 2),
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

/**
 * The 30-day history range (ms) the distinct commands go in: the one after the range holding the
 * 20 bench commands, which start 72 h ahead and step up to five hours on a 409. The BFF reads a
 * range it has read already again only at its open-command pace of minutes (docs/architecture.md,
 * Read model), so commands sent straight to the sandbox into the bench commands' range, read by
 * the BFF when they were submitted, would be learnt minutes late; in a range never read they are
 * learnt as soon as a page asks for it. Whether the two fell in one range used to depend on the
 * time of day.
 */
export function distinctCommandsRange(nowMs: number): { startMs: number; endMs: number } {
  const benchCommandsEndMs = Math.ceil(nowMs / HOUR_MS) * HOUR_MS + 78 * HOUR_MS;
  const startMs = slotOf(benchCommandsEndMs) + MAX_HISTORY_RANGE_MS;
  return { startMs, endMs: startMs + MAX_HISTORY_RANGE_MS };
}

/**
 * Submits `batches` batch commands of 50 devices of PLANT-EU-100 (bound already) straight to the
 * sandbox's vendor API, each batch in its own half-hour window a day into `range`
 * ({@link distinctCommandsRange}), one hour apart, so none overlaps another or the 20 bench
 * commands. The vendor answers a batch with its batch ID only (docs/upstream.md, Batches), so the
 * device commands are then read from each device's history over those windows. Returns every
 * command, batch by batch in submission order.
 */
export async function submitDistinctCommands(
  sandboxOrigin: string,
  token: string,
  batches: number,
  range: { startMs: number },
): Promise<BenchCommand[]> {
  const base = range.startMs + 24 * HOUR_MS;
  const devices = Array.from(
    { length: MAX_BATCH_DEVICES },
    (_, i) => `BAT-EU-100-${String(i + 1).padStart(2, '0')}`,
  );
  const authorization = `Bearer ${token}`;
  const starts: string[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const startMs = base + batch * HOUR_MS;
    starts.push(iso(startMs));
    const response = await request(`${sandboxOrigin}${vendorPath('/devices/commands')}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({
        devices,
        command: {
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: iso(startMs),
          endTime: iso(startMs + HOUR_MS / 2),
        },
      }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 202)
      throw new Error(`batch ${batch}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
    BatchAcceptedSchema.parse(JSON.parse(text));
  }
  // Each device's commands in the batches' windows, by start time (one per batch and device).
  const byStart = new Map<string, BenchCommand[]>(starts.map((start) => [start, []]));
  const windows = new URLSearchParams({
    startTime: iso(base),
    endTime: iso(base + batches * HOUR_MS),
    size: String(MAX_PAGE_SIZE),
  });
  for (const deviceId of devices) {
    for (let page = 1, read = 0; ; page++) {
      windows.set('page', String(page));
      const path = vendorPath(`/device/${deviceId}/commands?${windows.toString()}`);
      const response = await request(`${sandboxOrigin}${path}`, { headers: { authorization } });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(
          `history of ${deviceId}: HTTP ${response.statusCode} ${text.slice(0, 300)}`,
        );
      const history = HistoryPageSchema.parse(JSON.parse(text));
      for (const record of history.commands)
        byStart.get(new Date(record.startTime).toISOString().replace('.000Z', 'Z'))?.push({
          deviceId,
          commandId: record.id,
        });
      read += history.commands.length;
      if (history.commands.length === 0 || read >= history.total) break;
    }
  }
  const commands = starts.flatMap((start) => byStart.get(start) ?? []);
  if (commands.length !== batches * devices.length)
    throw new Error(
      `found ${commands.length} of the ${batches * devices.length} batch commands in the histories`,
    );
  return commands;
}

/**
 * Waits until the BFF of `session` knows every one of `commands`, which the bench put straight
 * into the sandbox in `range` ({@link distinctCommandsRange}): the BFF answers device commands from
 * its read model (docs/architecture.md, Read model), which learns a command sent outside it at the
 * device's next read. Asking for each device's history over a range it never read makes it read
 * it; this polls those pages until each device lists its commands.
 *
 * @throws Error when a device's commands are not known within `timeoutMs`.
 */
export async function awaitKnownToBff(
  session: BffSession,
  commands: readonly BenchCommand[],
  range: { startMs: number; endMs: number },
  timeoutMs = 120_000,
): Promise<void> {
  const byDevice = new Map<string, Set<string>>();
  for (const c of commands)
    byDevice.set(c.deviceId, (byDevice.get(c.deviceId) ?? new Set()).add(c.commandId));
  const query = new URLSearchParams({ startTime: iso(range.startMs), endTime: iso(range.endMs) });
  const deadline = Date.now() + timeoutMs;
  for (const [deviceId, wanted] of byDevice)
    for (;;) {
      const page = (await bffCall(
        session,
        'GET',
        `/api/devices/${deviceId}/commands?${query.toString()}`,
      )) as { commands?: { id: string }[] };
      const known = new Set((page.commands ?? []).map((c) => c.id));
      if ([...wanted].every((id) => known.has(id))) break;
      if (Date.now() > deadline)
        throw new Error(`the BFF did not learn ${deviceId}'s bench commands in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
}
