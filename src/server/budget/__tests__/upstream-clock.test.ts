import { describe, expect, it } from 'vitest';
import { buildServerApp } from '../../app.ts';
import { fileDatabase } from '../../__tests__/support/bff.ts';

const database = fileDatabase();

const region = { authUrl: 'http://127.0.0.1:9/eu', baseUrl: 'http://127.0.0.1:9/eu' };

/** The budget and the queue of changes count on the upstream's clock, given to the BFF. */
describe('the upstream clock of the BFF', () => {
  it('is the clock it was given, moving as that clock moves', async () => {
    let sandboxNowMs = Date.parse('2031-01-01T00:00:00Z');
    const app = await buildServerApp({
      upstreams: { eu: region, au: region },
      database: database.handle,
      upstreamClock: () => sandboxNowMs,
    });
    try {
      expect(app.upstreamNow()).toBe(sandboxNowMs);
      sandboxNowMs += 60_000;
      expect(app.upstreamNow()).toBe(Date.parse('2031-01-01T00:01:00Z'));
    } finally {
      await app.close();
    }
  });

  it('is the wall clock by default', async () => {
    const app = await buildServerApp({
      upstreams: { eu: region, au: region },
      database: database.handle,
    });
    try {
      expect(Math.abs(app.upstreamNow() - Date.now())).toBeLessThan(1000);
    } finally {
      await app.close();
    }
  });
});
