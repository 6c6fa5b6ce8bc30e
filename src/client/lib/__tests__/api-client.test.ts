import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRequest, apiRequestWithStatus, retryAfterMs } from '../api-client.ts';
import { ApiError } from '../api-error.ts';
import { json, noContent, problem, stubFetch } from '../../testing/fake-fetch.ts';
import '../../testing/render.tsx';

const ThingSchema = z.object({ id: z.string() });

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('apiRequest', () => {
  it('parses the BFF problem+json into an ApiError with status, code and detail', async () => {
    stubFetch(() =>
      problem(409, 'not_cancellable', 'Command cmd_1 is completed and cannot be cancelled.'),
    );
    const error = await rejection(apiRequest('/things/1', ThingSchema));
    expect(error).toMatchObject({
      name: 'ApiError',
      status: 409,
      code: 'not_cancellable',
      detail: 'Command cmd_1 is completed and cannot be cancelled.',
    });
    expect(error.message).toBe('Command cmd_1 is completed and cannot be cancelled.');
  });

  it('keeps the upstream part of a problem', async () => {
    const upstream = { code: 'window_overlap', message: 'overlaps cmd_0' };
    stubFetch(() =>
      json(409, { title: 'Conflict', status: 409, code: 'window_overlap', detail: 'x', upstream }),
    );
    expect((await rejection(apiRequest('/x', ThingSchema))).upstream).toEqual(upstream);
  });

  it('uses the title when a problem has no detail', async () => {
    stubFetch(() => json(403, { title: 'Site not bound', status: 403, code: 'site_not_bound' }));
    expect(await rejection(apiRequest('/x', ThingSchema))).toMatchObject({
      code: 'site_not_bound',
      detail: 'Site not bound',
    });
  });

  it('turns an error answer that is not a problem into unexpected_response with the status', async () => {
    stubFetch(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    expect(await rejection(apiRequest('/x', ThingSchema))).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      detail: expect.stringContaining('HTTP 502'),
    });
  });

  it('turns no answer into network_error with status 0', async () => {
    stubFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await rejection(apiRequest('/x', ThingSchema))).toMatchObject({
      status: 0,
      code: 'network_error',
    });
  });

  it('refuses a successful body that does not match the schema', async () => {
    stubFetch(() => json(200, { id: 42 }));
    expect(await rejection(apiRequest('/x', ThingSchema))).toMatchObject({
      status: 200,
      code: 'unexpected_response',
    });
  });

  it('returns the parsed body and the status', async () => {
    stubFetch(() => json(201, { id: 'a', extra: true }));
    await expect(apiRequestWithStatus('/x', ThingSchema)).resolves.toEqual({
      status: 201,
      data: { id: 'a' },
    });
  });

  it('sends X-CSRF: 1 and JSON on every non-GET call, neither on GET, always same-origin', async () => {
    const requests = stubFetch((request) =>
      request.method === 'DELETE' ? noContent() : json(200, { id: 'a' }),
    );
    await apiRequest('/x', ThingSchema, { query: { from: 'a b', status: undefined } });
    await apiRequest('/x', ThingSchema, { method: 'POST', body: { siteId: 'S1' } });
    await expect(apiRequest('/x', null, { method: 'DELETE' })).resolves.toBeUndefined();

    const [get, post, del] = requests;
    expect(get?.path).toBe('/api/x');
    expect(get?.search.toString()).toBe('from=a+b');
    expect(get?.headers.get('X-CSRF')).toBeNull();
    expect(post?.headers.get('X-CSRF')).toBe('1');
    expect(post?.headers.get('Content-Type')).toBe('application/json');
    expect(post?.body).toEqual({ siteId: 'S1' });
    expect(del?.headers.get('X-CSRF')).toBe('1');
    const init = (globalThis.fetch as unknown as { mock: { calls: [string, RequestInit][] } }).mock
      .calls[0]?.[1];
    expect(init?.credentials).toBe('same-origin');
  });
});

describe('Retry-After', () => {
  it('is read from a refusal into retryAfterMs', async () => {
    stubFetch(
      () =>
        new Response(
          JSON.stringify({
            title: 'Busy',
            status: 429,
            code: 'device_rate_limited',
            detail: 'Later.',
          }),
          {
            status: 429,
            headers: { 'content-type': 'application/problem+json', 'retry-after': '17' },
          },
        ),
    );
    const error = await rejection(apiRequest('/things', ThingSchema));
    expect(error.retryAfterMs).toBe(17_000);
  });

  it('is absent when the answer has none', async () => {
    stubFetch(() => problem(503, 'outcome_unknown', 'Not known yet.'));
    const error = await rejection(apiRequest('/things', ThingSchema));
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('reads seconds or a date, and nothing from words', () => {
    const nowMs = Date.parse('2026-11-21T00:50:00Z');
    expect(retryAfterMs('5', nowMs)).toBe(5_000);
    expect(retryAfterMs('Sat, 21 Nov 2026 00:50:30 GMT', nowMs)).toBe(30_000);
    expect(retryAfterMs('Sat, 21 Nov 2026 00:49:00 GMT', nowMs)).toBe(0);
    expect(retryAfterMs('soon', nowMs)).toBeUndefined();
    expect(retryAfterMs(null, nowMs)).toBeUndefined();
  });
});
