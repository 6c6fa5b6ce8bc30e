import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBff, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

let fake: FakeUpstream;
let bff: TestBff;
let staticDir: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  staticDir = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-spa-'));
  await mkdir(path.join(staticDir, 'assets'));
  await writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>powerdeck</title>');
  await writeFile(path.join(staticDir, 'assets', 'app-1a2b.js'), 'console.log(1)');
  bff = await buildTestBff(fake, { staticDir });
});
afterAll(async () => {
  await bff.app.close();
  await fake.close();
  await rm(staticDir, { recursive: true, force: true });
});

describe('the SPA', () => {
  it('serves index.html at / and for page navigations, revalidated', async () => {
    for (const url of ['/', '/sites', '/devices/BAT-EU-001-A']) {
      const response = await bff.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.body).toContain('<title>powerdeck</title>');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it('serves hashed assets as immutable', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/assets/app-1a2b.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toContain('immutable');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers unknown API paths and missing files with a 404 problem, not the page', async () => {
    const api = await bff.app.inject({
      method: 'GET',
      url: '/api/nope',
      headers: { accept: 'text/html' },
    });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toContain('application/problem+json');
    const asset = await bff.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(asset.statusCode).toBe(404);
  });
});
