import { QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#client/lib/api-error.ts';
import { json, problem, stubFetch, type RecordedRequest } from '#client/testing/fake-fetch.ts';
import { createTestQueryClient } from '#client/testing/render.tsx';
import { useSubmitCommand } from '../../api/submit-command.ts';
import { outcomeCheckDelayMs } from '../operator-intent.ts';

/*
 * A submission whose outcome is open is checked by itself, as the same intent, until an answer
 * decides it. Fake timers move time; nothing here waits for real.
 */

const COMMAND = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-11-21T01:00:00Z',
  endTime: '2026-11-21T02:00:00Z',
};
const ACCEPTED = { id: 'cmd_1', message: 'Command received', timestamp: '2026-11-21T00:50:00Z' };

const unavailable = () => problem(503, 'outcome_unknown', 'The vendor did not answer.');
const busyFor = (seconds: number) => () =>
  new Response(
    JSON.stringify({
      title: 'Busy',
      status: 429,
      code: 'device_rate_limited',
      detail: 'The device takes its next call later.',
    }),
    {
      status: 429,
      headers: { 'content-type': 'application/problem+json', 'retry-after': String(seconds) },
    },
  );
const overlap = () => problem(409, 'window_overlap', 'The window overlaps another command.');

/** Answers the submissions in turn with `answers` (the last one repeats), reads with 200. */
function bff(answers: (() => Response)[]) {
  const queue = [...answers];
  const requests = stubFetch((request) => {
    if (request.method === 'GET') return json(200, { commands: [], entries: [] });
    const next = queue.length > 1 ? queue.shift() : queue[0];
    if (!next) throw new Error('no answer');
    return next();
  });
  const submissions = () => requests.filter((request) => request.method === 'POST');
  return { submissions };
}

const keyOf = (request: RecordedRequest) => request.headers.get('Idempotency-Key');
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

function renderSubmit() {
  const queryClient = createTestQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return renderHook(() => useSubmitCommand(), { wrapper });
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-11-21T00:50:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('outcomeCheckDelayMs', () => {
  const open = (retryAfterMs?: number) =>
    new ApiError({ status: 503, code: 'outcome_unknown', title: 'Unknown', retryAfterMs });

  it("waits the server's Retry-After when it gave one, else 2 s doubling up to 30 s", () => {
    expect(outcomeCheckDelayMs(0, open(12_000))).toBe(12_000);
    expect(outcomeCheckDelayMs(5, open(3_000))).toBe(3_000);
    expect([0, 1, 2, 3, 4, 9].map((count) => outcomeCheckDelayMs(count, open()))).toEqual([
      2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
  });
});

describe('a submission whose outcome is open', () => {
  it('is checked again and again with the same key until the answer decides it', async () => {
    const { submissions } = bff([
      unavailable,
      unavailable,
      unavailable,
      unavailable,
      () => json(202, ACCEPTED),
    ]);
    const { result } = renderSubmit();

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await advance(0);
    expect(submissions()).toHaveLength(1);
    expect(result.current.outcomeChecking).toEqual({
      state: 'checking',
      nextTryAtMs: Date.now() + 2_000,
    });
    expect(result.current.isError).toBe(false);

    // 2 s, 4 s, 8 s: more than the two quick retries of before, and no refusal meanwhile.
    await advance(2_000 + 4_000 + 8_000);
    expect(submissions()).toHaveLength(4);
    expect(result.current.isPending).toBe(true);
    expect(result.current.outcomeChecking.state).toBe('checking');

    await advance(16_000);
    await vi.waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(result.current.data).toEqual(ACCEPTED);
    expect(result.current.outcomeChecking).toEqual({ state: 'idle' });
    const keys = submissions().map(keyOf);
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(1);
  });

  it('waits the Retry-After the server gave before checking again', async () => {
    const { submissions } = bff([busyFor(20), () => json(202, ACCEPTED)]);
    const { result } = renderSubmit();

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await advance(0);
    expect(result.current.outcomeChecking).toEqual({
      state: 'checking',
      nextTryAtMs: Date.now() + 20_000,
    });
    await advance(19_900);
    expect(submissions()).toHaveLength(1);
    await advance(100);
    expect(submissions()).toHaveLength(2);
    await vi.waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(keyOf(submissions()[1] as RecordedRequest)).toBe(
      keyOf(submissions()[0] as RecordedRequest),
    );
  });

  it('stops on a refusal: it is shown, and nothing more is sent', async () => {
    const { submissions } = bff([unavailable, overlap, () => json(202, ACCEPTED)]);
    const { result } = renderSubmit();

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await advance(2_000);
    expect(result.current.isError).toBe(true);
    expect(result.current.error?.code).toBe('window_overlap');
    expect(result.current.outcomeChecking).toEqual({ state: 'idle' });
    await advance(120_000);
    expect(submissions()).toHaveLength(2);
  });

  it('stops when the operator stops checking, and the same values later go as the same intent', async () => {
    const { submissions } = bff([unavailable, unavailable, () => json(202, ACCEPTED)]);
    const { result } = renderSubmit();

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await advance(0);
    act(() => result.current.stopChecking());
    expect(result.current.outcomeChecking).toEqual({ state: 'stopped' });
    expect(result.current.isPending).toBe(false);
    expect(result.current.isError).toBe(false);
    await advance(120_000);
    expect(submissions()).toHaveLength(1);
    expect(result.current.outcomeChecking).toEqual({ state: 'stopped' });

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    expect(result.current.outcomeChecking.state).not.toBe('stopped');
    await advance(2_000);
    await vi.waitFor(() => expect(result.current.isSuccess).toBe(true));
    const keys = submissions().map(keyOf);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });
});
