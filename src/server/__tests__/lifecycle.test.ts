import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBff, fileDatabase, signIn } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import { rawRequest } from './support/raw-request.ts';

const database = fileDatabase();

let fake: FakeUpstream;
let releaseSites: () => void = () => undefined;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', async () => {
    await new Promise<void>((resolve) => (releaseSites = resolve));
    return { sites: [] };
  });
});
afterAll(() => fake.close());

describe('health', () => {
  it('answers /healthz and /readyz without the upstream, never cached', async () => {
    const { app } = await buildTestBff(fake, { database: database.handle });
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    expect(health.headers['cache-control']).toBe('no-store');
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'ready',
      circuits: { eu: 'closed', au: 'closed' },
    });
    expect(fake.seen).toHaveLength(0);
    await app.close();
  });
});

describe('shutdown', () => {
  it('finishes a request in flight before closing', async () => {
    const { app } = await buildTestBff(fake, { database: database.handle });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const cookie = await signIn(app);
    const inFlight = rawRequest(app, 'GET', '/api/sites', { cookie });
    while (fake.seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const closing = app.close();
    releaseSites();
    const response = await inFlight;
    await closing;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ sites: [] });
  });
});
