/**
 * The workspace's typed client (`packages/client`, docs/automation.md): its types are what the
 * product's OpenAPI document generates (a stale checked-in file fails here; `npm run api-client`
 * writes it anew), and a script with an API token sends a command through it and reads it back
 * from a BFF on a real port.
 */
import type { AddressInfo } from 'node:net';
import openapiTS, { COMMENT_HEADER, astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiTokenMadeSchema } from '#domain/api-tokens.ts';
import { createPowerdeckClient, nextCallAt } from '@powerdeck/client';
import { CSRF, buildTestBff, fileDatabase, signIn, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const database = fileDatabase();
const T0 = Date.parse('2026-05-01T10:00:00Z');
const MINUTE = 60_000;

let fake: FakeUpstream;
let bff: TestBff;
let secret: string;
let baseUrl: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () => vendorPage('sites', [vendorSite('SITE-1', ['BAT-1'])]));
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    reply.code(202).send({ id: 'cmd_1', message: 'accepted', timestamp: '2026-05-01T10:00:00Z' }),
  );
  bff = await buildTestBff(fake, { database: database.handle });
  bff.clock.nowMs = T0;
  const cookie = await signIn(bff.app, { operatorName: 'Ada' });
  const made = await bff.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { cookie, ...CSRF },
    payload: { name: 'trading desk', role: 'dispatcher', expiresInDays: 30 },
  });
  expect(made.statusCode, made.body).toBe(201);
  secret = ApiTokenMadeSchema.parse(made.json()).secret;
  await bff.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(bff.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await bff?.app.close();
  await fake?.close();
});

describe('the typed client', () => {
  it("is generated from the product's OpenAPI document as it is now", async () => {
    const document = (await bff.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const types = COMMENT_HEADER + astToString(await openapiTS(document as OpenAPI3));
    await expect(types).toMatchFileSnapshot('../../../packages/client/src/product-api.ts');
  });

  it('sends a command with an API token and reads it back', async () => {
    const client = createPowerdeckClient({ baseUrl, token: secret });
    const sent = await client.POST('/api/devices/{deviceId}/commands', {
      params: { path: { deviceId: 'BAT-1' }, header: { 'idempotency-key': 'desk-1' } },
      body: {
        powerControl: { targetBatteryPowerW: -3000 },
        startTime: new Date(T0 + 60 * MINUTE).toISOString(),
        endTime: new Date(T0 + 90 * MINUTE).toISOString(),
      },
    });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(202);
    expect(nextCallAt(sent.response)?.getTime()).toBe(T0);
    const data = sent.data;
    if (!data || 'queued' in data) throw new Error(`not sent: ${JSON.stringify(data)}`);
    expect(data.id).toBe('cmd_1');

    const read = await client.GET('/api/devices/{deviceId}/commands/{commandId}', {
      params: { path: { deviceId: 'BAT-1', commandId: data.id } },
    });
    expect(read.response.status, JSON.stringify(read.error)).toBe(200);
    expect(read.data).toMatchObject({
      id: 'cmd_1',
      powerControl: { targetBatteryPowerW: -3000 },
    });

    // The same key again after a timeout: the first answer, not a second command.
    const again = await client.POST('/api/devices/{deviceId}/commands', {
      params: { path: { deviceId: 'BAT-1' }, header: { 'idempotency-key': 'desk-1' } },
      body: {
        powerControl: { targetBatteryPowerW: -3000 },
        startTime: new Date(T0 + 60 * MINUTE).toISOString(),
        endTime: new Date(T0 + 90 * MINUTE).toISOString(),
      },
    });
    expect(again.data).toEqual(data);
    expect(
      fake.seen.filter((s) => s.method === 'POST' && s.url.endsWith('/commands')),
    ).toHaveLength(1);

    const refused = await createPowerdeckClient({ baseUrl, token: 'pdk_unknown' }).GET(
      '/api/devices/{deviceId}/commands/{commandId}',
      { params: { path: { deviceId: 'BAT-1', commandId: data.id } } },
    );
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ code: 'token_invalid' });
  });
});
