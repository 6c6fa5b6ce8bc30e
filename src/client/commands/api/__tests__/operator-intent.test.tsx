import { QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeviceCommand } from '#domain/command.ts';
import { json, problem, stubFetch, type RecordedRequest } from '#client/testing/fake-fetch.ts';
import { createTestQueryClient } from '#client/testing/render.tsx';
import { useCancelBatch } from '../cancel-batch.ts';
import { useCancelCommand } from '../cancel-command.ts';
import { useSubmitBatch } from '../submit-batch.ts';
import { useSubmitCommand } from '../submit-command.ts';

const COMMAND: DeviceCommand = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-11-21T01:00:00Z',
  endTime: '2026-11-21T02:00:00Z',
};
const LATER: DeviceCommand = {
  ...COMMAND,
  startTime: '2026-11-21T03:00:00Z',
  endTime: '2026-11-21T04:00:00Z',
};
const ACCEPTED = { id: 'cmd_1', message: 'Command received', timestamp: '2026-11-21T00:50:00Z' };

/** Answers the change calls in turn with `answers`, the rest (reads after a change) with 200. */
function bff(answers: (() => Response)[]) {
  const queue = [...answers];
  const requests = stubFetch((request) => {
    if (request.method === 'GET') return json(200, { commands: [], entries: [] });
    const next = queue.shift();
    if (!next) throw new Error(`no answer left for ${request.method} ${request.path}`);
    return next();
  });
  const changes = () => requests.filter((request) => request.method !== 'GET');
  return { changes };
}

const keyOf = (request: RecordedRequest | undefined) => request?.headers.get('Idempotency-Key');
const networkError = () => {
  throw new TypeError('Failed to fetch');
};
const unavailable = () => problem(503, 'upstream_unavailable', 'The vendor did not answer.');

/** Lets the hooks' waits between checks pass at once (fake timers; no real waiting). */
const passChecks = () => act(() => vi.advanceTimersByTimeAsync(60_000));

afterEach(() => {
  vi.useRealTimers();
});

function wrapper() {
  const queryClient = createTestQueryClient();
  // Retries of a change come from the hooks themselves; the test does not wait between them.
  queryClient.setDefaultOptions({
    ...queryClient.getDefaultOptions(),
    mutations: { retry: false, retryDelay: 0 },
  });
  return ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
}

describe('a device command submission is one operator intent', () => {
  it('sends an Idempotency-Key and repeats it when TanStack Query retries after a lost answer', async () => {
    vi.useFakeTimers();
    const { changes } = bff([networkError, unavailable, () => json(202, ACCEPTED)]);
    const { result } = renderHook(() => useSubmitCommand(), { wrapper: wrapper() });

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));

    await passChecks();
    expect(result.current.isSuccess).toBe(true);
    const keys = changes().map(keyOf);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[\w-]{8,}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('repeats the key when the operator tries again after the quick retries gave up', async () => {
    const { changes } = bff([unavailable, unavailable, unavailable, () => json(202, ACCEPTED)]);
    // The timeline's way: two quick retries, then the operator's own try.
    const { result } = renderHook(() => useSubmitCommand({ untilDecided: false }), {
      wrapper: wrapper(),
    });

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await waitFor(() => expect(result.current.isError).toBe(true));
    // "Try again" sends the same values again, from the form or from `variables`.
    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));

    const keys = changes().map(keyOf);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
  });

  it('gives a new intent a new key: after a success, after a refusal, and for other values', async () => {
    const { changes } = bff([
      () => json(202, ACCEPTED),
      () => json(202, { ...ACCEPTED, id: 'cmd_2' }),
      () => problem(409, 'window_overlap', 'The window overlaps another command.'),
      () => json(202, { ...ACCEPTED, id: 'cmd_3' }),
    ]);
    const { result } = renderHook(() => useSubmitCommand(), { wrapper: wrapper() });

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await waitFor(() => expect(result.current.data).toMatchObject({ id: 'cmd_2' }));
    act(() => result.current.mutate({ deviceId: 'BAT-1', command: LATER }));
    await waitFor(() => expect(result.current.isError).toBe(true));
    // The refusal decided that attempt; once the operator fixed its cause, a new one is sent.
    act(() => result.current.mutate({ deviceId: 'BAT-1', command: LATER }));
    await waitFor(() => expect(result.current.data).toMatchObject({ id: 'cmd_3' }));

    const keys = changes().map(keyOf);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(4);
  });
});

describe('batches and cancels are keyed the same way', () => {
  it('a batch retried after a lost answer keeps its key; the next batch gets another', async () => {
    const accepted = {
      batchCommandId: 'batch_1',
      timestamp: '2026-11-21T00:50:00Z',
      confirmation: 'confirming',
      commands: [],
      unconfirmed: [{ deviceId: 'BAT-1', state: 'confirming' }],
    };
    const { changes } = bff([
      networkError,
      () => json(202, accepted),
      () => json(202, { ...accepted, batchCommandId: 'batch_2' }),
    ]);
    vi.useFakeTimers();
    const { result } = renderHook(() => useSubmitBatch(), { wrapper: wrapper() });

    act(() => result.current.mutate({ devices: ['BAT-1'], command: COMMAND }));
    await passChecks();
    expect(result.current.isSuccess).toBe(true);
    act(() => result.current.mutate({ devices: ['BAT-1'], command: LATER }));
    await passChecks();
    expect(result.current.data).toMatchObject({ batchCommandId: 'batch_2' });

    const [first, retry, next] = changes().map(keyOf);
    expect(first).toBeTruthy();
    expect(retry).toBe(first);
    expect(next).not.toBe(first);
  });

  it('a cancel and a batch cancel carry a key, repeated on retry', async () => {
    const cancelled = {
      deviceId: 'BAT-1',
      commandId: 'cmd_1',
      status: 'cancelled',
      cancelledAt: '2026-11-21T00:55:00Z',
      cancelReason: 'manuallyCancel',
    };
    const { changes } = bff([
      unavailable,
      () => json(200, cancelled),
      networkError,
      () => json(200, { batchCommandId: 'batch_1', results: [] }),
    ]);
    const cancel = renderHook(() => useCancelCommand(), { wrapper: wrapper() }).result;
    const cancelBatch = renderHook(() => useCancelBatch(), { wrapper: wrapper() }).result;

    act(() => cancel.current.mutate({ deviceId: 'BAT-1', commandId: 'cmd_1' }));
    await waitFor(() => expect(cancel.current.isSuccess).toBe(true));
    act(() => cancelBatch.current.mutate({ batchCommandId: 'batch_1', deviceIds: ['BAT-1'] }));
    await waitFor(() => expect(cancelBatch.current.isSuccess).toBe(true));

    const [cancelTry, cancelRetry, batchTry, batchRetry] = changes().map(keyOf);
    expect(cancelTry).toBeTruthy();
    expect(cancelRetry).toBe(cancelTry);
    expect(batchTry).toBeTruthy();
    expect(batchRetry).toBe(batchTry);
    expect(batchTry).not.toBe(cancelTry);
  });
});

describe('a change the budget of upstream calls cannot carry now', () => {
  const QUEUED = {
    queued: {
      changeId: 'chg_1',
      goesAt: '2026-11-21T00:51:20Z',
      reason: 'no_slot',
      deviceIds: ['BAT-1'],
    },
  };

  it('is answered queued, not refused, and is not sent again', async () => {
    const { changes } = bff([() => json(202, QUEUED)]);
    const { result } = renderHook(() => useSubmitCommand(), { wrapper: wrapper() });

    act(() => result.current.mutate({ deviceId: 'BAT-1', command: COMMAND }));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));

    expect(result.current.data).toEqual(QUEUED);
    expect(changes()).toHaveLength(1);
  });

  it('is a queued cancel, not a cancellation, for a cancel', async () => {
    bff([() => json(202, QUEUED)]);
    const { result } = renderHook(() => useCancelCommand(), { wrapper: wrapper() });

    act(() => result.current.mutate({ deviceId: 'BAT-1', commandId: 'cmd_1' }));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));

    expect(result.current.data).toEqual(QUEUED);
  });
});
