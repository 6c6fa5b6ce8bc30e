import { QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CommandStatus, StatusRecord } from '#domain/command.ts';
import { historyRangeSlots, type HistoryResponse, type TimeRangeMs } from '#domain/history.ts';
import { ApiError } from '#client/lib/api-error.ts';
import { nextStatusPollMs, STATUS_POLL_MS } from '../../lib/status-polling.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { createTestQueryClient } from '#client/testing/render.tsx';
import { commandKeys } from '../command-keys.ts';
import { useCommandStatus } from '../get-command-status.ts';
import { RECEIVED_ON_BAT_1 } from '#client/testing/status-records.ts';

const RECORD = RECEIVED_ON_BAT_1;
/** The cached history slot holding the record's window. */
function slotOf(record: StatusRecord): TimeRangeMs {
  const [slot] = historyRangeSlots(Date.parse(record.startTime), Date.parse(record.endTime));
  if (!slot) throw new Error('no history slot');
  return slot;
}
const SLOT = slotOf(RECORD);

function setUp(initial: StatusRecord, answers: CommandStatus[]) {
  const queryClient = createTestQueryClient();
  queryClient.setQueryData<HistoryResponse>(commandKeys.history('BAT-1', SLOT), {
    commands: [initial],
  });
  let call = 0;
  const requests = stubFetch(() => {
    const status = answers[Math.min(call, answers.length - 1)] ?? 'received';
    call += 1;
    return json(200, { ...initial, status });
  });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  const hook = renderHook(() => useCommandStatus(initial, Date.now()), { wrapper });
  const listStatus = () =>
    queryClient.getQueryData<HistoryResponse>(commandKeys.history('BAT-1', SLOT))?.commands[0]
      ?.status;
  return { hook, requests, listStatus };
}

// One poll interval, then the zero-delay timer TanStack Query notifies observers with.
const tick = () =>
  act(async () => {
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS);
    await vi.advanceTimersByTimeAsync(1);
  });

describe('useCommandStatus', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('polls while received or executing, stops at a final status, and updates the list', async () => {
    const { hook, requests, listStatus } = setUp(RECORD, ['executing', 'completed']);
    expect(requests).toHaveLength(0);

    await tick();
    expect(hook.result.current.data?.status).toBe('executing');
    expect(listStatus()).toBe('executing');

    await tick();
    expect(hook.result.current.data?.status).toBe('completed');
    expect(listStatus()).toBe('completed');
    const callsAtFinal = requests.length;

    for (let i = 0; i < 5; i += 1) await tick();
    expect(requests).toHaveLength(callsAtFinal);
    expect(requests.every((r) => r.path === '/api/devices/BAT-1/commands/cmd_1')).toBe(true);
  });

  it('never asks for a command that is already final', async () => {
    const { requests } = setUp(
      { ...RECORD, status: 'cancelled', cancelReason: 'manuallyCancel' },
      [],
    );
    for (let i = 0; i < 3; i += 1) await tick();
    expect(requests).toHaveLength(0);
  });
});

describe('nextStatusPollMs', () => {
  const refusal = (status: number) => new ApiError({ status, code: 'x', title: 'x' });

  it('stops at a final status and at a refusal, keeps going otherwise', () => {
    expect(nextStatusPollMs('received', null)).toBe(STATUS_POLL_MS);
    expect(nextStatusPollMs('executing', null)).toBe(STATUS_POLL_MS);
    expect(nextStatusPollMs('completed', null)).toBe(false);
    expect(nextStatusPollMs('cancelled', null)).toBe(false);
    expect(nextStatusPollMs('received', refusal(403))).toBe(false);
    expect(nextStatusPollMs('received', refusal(429))).toBe(STATUS_POLL_MS);
    expect(nextStatusPollMs('received', refusal(503))).toBe(STATUS_POLL_MS);
  });
});
