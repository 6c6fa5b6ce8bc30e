import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  HistoryPageSchema,
  SiteListSchema,
  StatusRecordSchema,
  SubmissionAnswerSchema,
} from '../vendor/schemas.ts';
import { EU, HOUR_MS, iso, MINUTE_MS } from './support/sandbox-harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const STARTUP_TIMEOUT_MS = 60_000;

interface Running {
  child: ChildProcess;
  origin: string;
}

/** Starts `src/sandbox/main.ts` on 127.0.0.1 port 0 and reads the URL it prints. */
function startSandbox(dataDir: string): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
    cwd: root,
    env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox did not start: ${output}`));
    }, STARTUP_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, origin: match[1] });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${output}`));
    });
  });
}

function kill(running: Running): Promise<void> {
  return new Promise((resolve) => {
    if (running.child.exitCode !== null || running.child.signalCode !== null) return resolve();
    running.child.once('exit', () => resolve());
    running.child.kill('SIGKILL');
  });
}

async function call(
  origin: string,
  method: string,
  url: string,
  options: { token?: string; json?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}${url}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.json === undefined ? null : JSON.stringify(options.json),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

let dataDir: string;
let running: Running | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'powerdeck-sandbox-restart-'));
});
afterAll(async () => {
  if (running) await kill(running);
  await rm(dataDir, { recursive: true, force: true });
});

describe('restart (state survives kill -9)', () => {
  it(
    'keeps bindings and commands after SIGKILL, the lifecycle continues, and a batch is all or nothing',
    async () => {
      running = await startSandbox(dataDir);
      let origin = running.origin;
      const tokenResponse = await fetch(`${origin}/eu/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=demo-eu&client_secret=demo-eu-secret',
      });
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
      await call(origin, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
      await call(origin, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-100' } });
      const clock = z
        .object({ now: z.string() })
        .parse((await call(origin, 'GET', '/_sandbox/clock')).body);
      const nowMs = Date.parse(clock.now);
      const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + HOUR_MS;
      const window = { startTime: iso(startMs), endTime: iso(startMs + HOUR_MS) };
      const submitted = await call(origin, 'POST', `${EU}/device/BAT-EU-001-A/commands`, {
        token,
        json: { powerControl: { targetBatteryPowerW: -2000 }, ...window },
      });
      expect(submitted.status).toBe(202);
      const commandId = SubmissionAnswerSchema.parse(submitted.body).id;
      await call(origin, 'POST', '/_sandbox/clock', { json: { now: window.startTime } });
      const statusUrl = `${EU}/devices/BAT-EU-001-A/commands/${commandId}`;
      const statusOf = async () =>
        StatusRecordSchema.parse((await call(origin, 'GET', statusUrl, { token })).body);
      expect((await statusOf()).status).toBe('executing');

      // A 50-device batch in flight when the process dies.
      const devices = Array.from(
        { length: 50 },
        (_, i) => `BAT-EU-100-${String(i + 1).padStart(2, '0')}`,
      );
      const batchWindow = {
        startTime: iso(startMs + 2 * HOUR_MS),
        endTime: iso(startMs + 3 * HOUR_MS),
      };
      void call(origin, 'POST', `${EU}/devices/commands`, {
        token,
        json: { devices, command: { powerControl: { siteImportLimitW: 1000 }, ...batchWindow } },
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await kill(running);

      running = await startSandbox(dataDir);
      origin = running.origin;
      const sites = await call(origin, 'GET', `${EU}/sites?includeDevices=false`, { token });
      expect(SiteListSchema.parse(sites.body).sites.map((s) => s.id)).toEqual([
        'PLANT-EU-001',
        'PLANT-EU-100',
      ]);
      expect((await statusOf()).status).toBe('executing');
      const counts = await Promise.all(
        devices.map(
          async (deviceId) =>
            HistoryPageSchema.parse(
              (
                await call(
                  origin,
                  'GET',
                  `${EU}/device/${deviceId}/commands?startTime=${batchWindow.startTime}&endTime=${batchWindow.endTime}`,
                  { token },
                )
              ).body,
            ).total,
        ),
      );
      const total = counts.reduce((sum, count) => sum + count, 0);
      expect([0, 50]).toContain(total);

      await call(origin, 'POST', '/_sandbox/clock', { json: { now: window.endTime } });
      expect(await statusOf()).toMatchObject({
        status: 'completed',
        completedAt: window.endTime,
      });
      await kill(running);
      running = undefined;
    },
    3 * STARTUP_TIMEOUT_MS,
  );
});
