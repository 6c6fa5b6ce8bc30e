import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBff, fileDatabase, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

const database = fileDatabase();

let fake: FakeUpstream;
let bff: TestBff;
let staticDir: string;
const INDEX = '<!doctype html><title>powerdeck</title>';
const SCRIPT = 'console.log(1)';

/** The body as the browser reads it, whatever the answer's Content-Encoding. */
function decoded(response: { headers: Record<string, unknown>; rawPayload: Buffer }): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload).toString();
  if (encoding === 'gzip') return gunzipSync(response.rawPayload).toString();
  return response.rawPayload.toString();
}

/** A page navigation of the browser to `url`. */
const navigate = (url: string) =>
  bff.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });

beforeAll(async () => {
  fake = await startFakeUpstream();
  staticDir = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-spa-'));
  await mkdir(path.join(staticDir, 'assets'));
  // As the build leaves them: each text file with its .br and .gz (vite.config.ts).
  for (const [name, text] of [
    ['index.html', INDEX],
    [path.join('assets', 'app-1a2b.js'), SCRIPT],
  ] as const) {
    await writeFile(path.join(staticDir, name), text);
    await writeFile(path.join(staticDir, `${name}.br`), brotliCompressSync(text));
    await writeFile(path.join(staticDir, `${name}.gz`), gzipSync(text));
  }
  await writeFile(path.join(staticDir, 'assets', 'plain-3c4d.js'), 'console.log(2)');
  bff = await buildTestBff(fake, { database: database.handle, staticDir });
});
afterAll(async () => {
  await bff.app.close();
  await fake.close();
  await rm(staticDir, { recursive: true, force: true });
});

describe('the SPA', () => {
  it('serves index.html at / and for page navigations, revalidated', async () => {
    for (const url of ['/', '/sites', '/devices/BAT-EU-001-A']) {
      const response = await navigate(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.body).toContain('<title>powerdeck</title>');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it("has the sign-in page's browser ask for the sign-in mode while its scripts load, and only that page", async () => {
    const signIn = await navigate('/sign-in?next=%2Fsites');
    expect(signIn.statusCode).toBe(200);
    expect(signIn.headers.link).toBe('</api/session/mode>; rel=preload; as=fetch; crossorigin');
    // The preloaded route answers as the page's own read does.
    const mode = await bff.app.inject({ method: 'GET', url: '/api/session/mode' });
    expect(mode.json()).toEqual({ mode: 'credentials' });
    for (const url of ['/', '/sites', '/sign-in/x']) {
      const page = await navigate(url);
      expect(page.statusCode).toBe(200);
      expect(page.headers.link).toBeUndefined();
    }
  });

  it('serves hashed assets as immutable', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/assets/app-1a2b.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toContain('immutable');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers brotli, gzip or the plain file by Accept-Encoding, varying on it', async () => {
    const cases = [
      { accept: 'gzip, deflate, br', encoding: 'br' },
      { accept: 'gzip', encoding: 'gzip' },
      { accept: 'identity', encoding: undefined },
      { accept: undefined, encoding: undefined },
    ];
    for (const { accept, encoding } of cases)
      for (const [url, text, type] of [
        ['/assets/app-1a2b.js', SCRIPT, 'javascript'],
        ['/', INDEX, 'text/html'],
        ['/sign-in', INDEX, 'text/html'],
      ] as const) {
        const response = await bff.app.inject({
          method: 'GET',
          url,
          headers: { accept: 'text/html', ...(accept ? { 'accept-encoding': accept } : {}) },
        });
        expect(response.statusCode, `${url} ${accept}`).toBe(200);
        expect(response.headers['content-encoding'], `${url} ${accept}`).toBe(encoding);
        expect(response.headers.vary).toContain('accept-encoding');
        expect(response.headers['content-type']).toContain(type);
        expect(response.headers['cache-control']).toBe(
          url.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
        expect(decoded(response)).toBe(text);
      }
  });

  it('serves a file the build did not compress as it is', async () => {
    const response = await bff.app.inject({
      method: 'GET',
      url: '/assets/plain-3c4d.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toBe('console.log(2)');
  });

  it('answers unknown API paths and missing files with a 404 problem, not the page', async () => {
    const api = await navigate('/api/nope');
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toContain('application/problem+json');
    const asset = await bff.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(asset.statusCode).toBe(404);
  });
});
