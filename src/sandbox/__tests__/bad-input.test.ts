import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EU, startHarness, type SandboxHarness } from './support/sandbox-harness.ts';

let sandbox: SandboxHarness;
let token: string;
beforeAll(async () => {
  sandbox = await startHarness();
  token = await sandbox.boundToken('PLANT-EU-001');
});
afterAll(() => sandbox.close());

const ROUTES = [
  ['POST', `${EU}/device/BAT-EU-001-A/commands`],
  ['POST', `${EU}/devices/commands`],
  ['POST', `${EU}/sites`],
  ['DELETE', `${EU}/sites`],
  ['POST', '/_sandbox/clock'],
  ['PUT', '/_sandbox/devices/BAT-EU-001-A'],
  ['PUT', '/_sandbox/dialect'],
] as const;

describe('bad input never gives 5xx', () => {
  it('answers any JSON body on every route with a non-5xx JSON error or success', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.jsonValue(), async ([method, url], body) => {
        const response = await sandbox.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expect(response.statusCode, response.body).toBeLessThan(500);
        expect(response.headers['content-type']).toMatch(/application\/json/);
      }),
      { numRuns: 300 },
    );
  });

  it('answers odd paths, query strings and headers with 4xx JSON', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        async (segment, query) => {
          for (const url of [
            `${EU}/devices/${encodeURIComponent(segment)}/commands/${encodeURIComponent(query)}`,
            `${EU}/device/BAT-EU-001-A/commands?${query}`,
            `${EU}/device/BAT-EU-001-A/commands?startTime=${encodeURIComponent(segment)}&endTime=${encodeURIComponent(query)}`,
            `${EU}/sites?${query}`,
            `${EU}/devices?${query}`,
          ]) {
            const response = await sandbox.app.inject({
              method: 'GET',
              url,
              headers: { authorization: `Bearer ${token}` },
            });
            expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(500);
          }
        },
      ),
      { numRuns: 200 },
    );
    for (const url of [
      `${EU}/devices/%E0%A4%A/commands/x`,
      `${EU}/device/BAT-EU-001-A/commands?startTime[]=a&startTime[]=b`,
      `${EU}/device/BAT-EU-001-A/commands?startTime=2030-01-01T00:00:00Z&startTime=2030-01-02T00:00:00Z&endTime=2030-01-03T00:00:00Z`,
      `${EU}/sites?page=1&page=2`,
    ]) {
      const response = await sandbox.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    }
  });

  it('answers junk token requests with RFC 6749 errors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), async (payload) => {
        const response = await sandbox.app.inject({
          method: 'POST',
          url: '/eu/api/auth/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        });
        expect([400, 401]).toContain(response.statusCode);
        expect(response.json()).toHaveProperty('error');
      }),
      { numRuns: 200 },
    );
  });
});
