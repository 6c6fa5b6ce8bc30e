import { QueryClientProvider } from '@tanstack/react-query';
import { renderHook, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { invalidationsOf } from '#client/app/push-updates.ts';
import { ToastRegion } from '#client/components/toast.tsx';
import type { StatusRecord } from '#domain/command.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { createTestQueryClient, renderWithProviders } from '#client/testing/render.tsx';
import type { UndoableChange } from '../../lib/undo.ts';
import { useUndo } from '../undo-change.ts';

const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const OLD: StatusRecord = {
  id: 'cmd_old',
  deviceId: 'BAT-1',
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: iso(Date.now() + 2 * HOUR_MS),
  endTime: iso(Date.now() + 3 * HOUR_MS),
  status: 'cancelled',
  receivedAt: iso(Date.now() - HOUR_MS),
  cancelReason: 'manuallyCancel',
};
const NEXT: StatusRecord = {
  ...OLD,
  id: 'cmd_new',
  startTime: iso(Date.now() + 4 * HOUR_MS),
  endTime: iso(Date.now() + 5 * HOUR_MS),
  status: 'received',
};
const REPLACE = {
  kind: 'replace',
  old: OLD,
  next: { deviceId: 'BAT-1', commandId: 'cmd_new' },
  key: 'replace-submit-key',
} as const;

function wrapper({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={createTestQueryClient()}>{children}</QueryClientProvider>;
}

/** Undoes `change` through useUndo, as the ledger's Undo does, on a Berlin site clock; the outcome. */
async function undoOnBerlinClock(change: UndoableChange) {
  const { result } = renderHook(() => useUndo(), { wrapper });
  return result.current.undo(change, 'Europe/Berlin');
}

/** The answer to cancelling batch b_1: BAT-1's command cancelled, BAT-2's cancelled or found `completed`. */
const batchCancelAnswer = (bat2Status: 'cancelled' | 'completed') => ({
  batchCommandId: 'b_1',
  results: [
    { deviceId: 'BAT-1', commandId: 'cmd_1', success: true, status: 'cancelled' },
    {
      deviceId: 'BAT-2',
      commandId: 'cmd_2',
      success: bat2Status === 'cancelled',
      status: bat2Status,
    },
  ],
});

/** A planned change as `POST /api/devices/{id}/changes` answers it: sent, or queued to go at `goesAt`. */
function plannedUndo(goesAt?: string) {
  const step = {
    deviceIds: ['BAT-1'],
    state: goesAt ? 'waiting' : 'sent',
    plannedAt: iso(Date.now()),
  };
  return {
    change: {
      id: 'chg_1',
      kind: 'undo',
      state: goesAt ? 'queued' : 'sent',
      deviceIds: ['BAT-1'],
      steps: [
        { ...step, call: 'cancel', commandId: 'cmd_new', idempotencyKey: 'k/1' },
        { ...step, call: 'submit', idempotencyKey: 'k/2' },
      ],
      undoOf: 'replace-submit-key',
      ...(goesAt ? { goesAt } : {}),
      createdAt: iso(Date.now()),
      updatedAt: iso(Date.now()),
    },
    ...(goesAt
      ? { queued: { changeId: 'chg_1', goesAt, reason: 'no_slot', deviceIds: ['BAT-1'] } }
      : { submitted: { id: 'cmd_back', message: 'ok', timestamp: iso(Date.now()) } }),
  };
}

describe('undo of a replace', () => {
  it('asks for the cancel of the new command and the old window again as one change, naming the replace it undoes', async () => {
    const requests = stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/devices/BAT-1/commands/cmd_new') return json(200, NEXT);
      if (route === 'POST /api/devices/BAT-1/changes') return json(200, plannedUndo());
      return json(200, { commands: [], entries: [], changes: [] });
    });
    const outcome = await undoOnBerlinClock(REPLACE);

    expect(outcome).toEqual({
      ok: true,
      words: 'Undone: command cmd_new is cancelled and the old window is back as cmd_back.',
    });
    // One request: the BFF plans both calls with the device's budget before the first goes.
    const changes = requests.filter((r) => r.method !== 'GET');
    expect(changes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/devices/BAT-1/changes',
    ]);
    expect(changes[0]?.headers.get('Idempotency-Key')).toBeTruthy();
    expect(changes[0]?.body).toEqual({
      kind: 'undoReplace',
      undoOf: 'replace-submit-key',
      commandId: 'cmd_new',
      command: { powerControl: OLD.powerControl, startTime: OLD.startTime, endTime: OLD.endTime },
    });
  });

  it('says when a queued undo goes, on the site clock with UTC at hand', async () => {
    stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/devices/BAT-1/commands/cmd_new') return json(200, NEXT);
      if (route === 'POST /api/devices/BAT-1/changes')
        return json(202, plannedUndo('2026-11-21T13:03:20Z'));
      return json(200, { commands: [], entries: [], changes: [] });
    });
    const outcome = await undoOnBerlinClock(REPLACE);

    expect(outcome.ok).toBe(true);
    expect(outcome.words).toMatch(
      /^Undo not sent yet\. Queued: it goes at 2026-11-21 14:03 \(Europe\/Berlin\), UTC 2026-11-21 13:03/,
    );
  });

  it('sends nothing and says why once the new command has started', async () => {
    const requests = stubFetch((request) =>
      request.path === '/api/devices/BAT-1/commands/cmd_new'
        ? json(200, { ...NEXT, status: 'executing' })
        : json(200, { commands: [], entries: [] }),
    );
    const outcome = await undoOnBerlinClock(REPLACE);

    expect(outcome.ok).toBe(false);
    expect(outcome.words).toMatch(/cmd_new is executing/);
    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('words a refused resend from its code', async () => {
    stubFetch((request) => {
      if (request.method === 'POST')
        return problem(409, 'window_overlap', 'overlap (spec 3.1 rule 2)');
      return json(200, { commands: [], entries: [] });
    });
    const outcome = await undoOnBerlinClock({ kind: 'cancel', record: OLD, key: 'cancel-key' });

    expect(outcome.ok).toBe(false);
    expect(outcome.words).toMatch(/^Undo was refused: The window overlaps another command/);
    expect(outcome.words).not.toMatch(/spec/);
  });
});

describe('undo of a batch submission', () => {
  const BATCH = {
    kind: 'batch',
    batchCommandId: 'b_1',
    commands: [
      { deviceId: 'BAT-1', commandId: 'cmd_1' },
      { deviceId: 'BAT-2', commandId: 'cmd_2' },
    ],
    key: 'batch-submit-key',
  } as const;
  const statusOf = (deviceId: string, id: string, status: StatusRecord['status']) => ({
    ...NEXT,
    deviceId,
    id,
    status,
  });

  it('cancels the batch, naming the submission it undoes, while all its commands are received', async () => {
    const requests = stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/devices/BAT-1/commands/cmd_1')
        return json(200, statusOf('BAT-1', 'cmd_1', 'received'));
      if (route === 'GET /api/devices/BAT-2/commands/cmd_2')
        return json(200, statusOf('BAT-2', 'cmd_2', 'received'));
      if (route === 'PUT /api/batches/b_1/cancel') return json(200, batchCancelAnswer('cancelled'));
      return json(200, { commands: [], entries: [] });
    });
    const outcome = await undoOnBerlinClock(BATCH);

    expect(outcome).toEqual({
      ok: true,
      words: 'Undone: batch b_1 is cancelled, all 2 of its commands.',
    });
    const changes = requests.filter((r) => r.method !== 'GET');
    expect(changes.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/batches/b_1/cancel']);
    expect(changes[0]?.headers.get('Powerdeck-Undo-Of')).toBe('batch-submit-key');
    expect(changes[0]?.headers.get('Idempotency-Key')).toBeTruthy();
  });

  it('cancels nothing once one command has started, says why and offers the batch cancel', async () => {
    const requests = stubFetch((request) => {
      if (request.path === '/api/devices/BAT-1/commands/cmd_1')
        return json(200, statusOf('BAT-1', 'cmd_1', 'received'));
      if (request.path === '/api/devices/BAT-2/commands/cmd_2')
        return json(200, statusOf('BAT-2', 'cmd_2', 'executing'));
      return json(200, { commands: [], entries: [] });
    });
    const outcome = await undoOnBerlinClock(BATCH);

    expect(outcome).toMatchObject({
      ok: false,
      batch: { batchCommandId: 'b_1', offerCancel: true },
    });
    expect(outcome.words).toMatch(/^Undo is no longer possible: 1 of 2 commands has started\./);
    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('says how many devices were not cancelled when the upstream refuses some', async () => {
    stubFetch((request) => {
      const id = /commands\/(cmd_\d)$/.exec(request.path)?.[1];
      if (id) return json(200, statusOf(id === 'cmd_1' ? 'BAT-1' : 'BAT-2', id, 'received'));
      if (request.method === 'PUT') return json(200, batchCancelAnswer('completed'));
      return json(200, { commands: [], entries: [] });
    });
    const outcome = await undoOnBerlinClock(BATCH);

    expect(outcome).toEqual({
      ok: false,
      words:
        'Batch b_1 is cancelled on 1 of 2 devices; 1 could not be cancelled. Its page says why.',
      batch: { batchCommandId: 'b_1', offerCancel: false },
    });
  });
});

/** A button that undoes `change` through {@link useUndo}, next to the toasts it shows. */
function UndoButton({ change }: { change: Parameters<ReturnType<typeof useUndo>['undo']>[0] }) {
  const { undo } = useUndo();
  return (
    <button type="button" onClick={() => void undo(change, 'Europe/Berlin')}>
      Undo now
    </button>
  );
}

/** Renders {@link UndoButton} for `change` beside the toasts and presses it; the query client. */
async function pressUndoNow(change: UndoableChange) {
  const user = userEvent.setup();
  const { queryClient } = renderWithProviders(
    <>
      <UndoButton change={change} />
      <ToastRegion />
    </>,
  );
  await user.click(screen.getByRole('button', { name: 'Undo now' }));
  return queryClient;
}

/** Pushes `queuedChangeChanged` for `changeId`, as the BFF's stream does, and lets it read again. */
async function pushChanged(
  queryClient: ReturnType<typeof createTestQueryClient>,
  changeId: string,
  state: 'sent' | 'failed' | 'withdrawn',
  deviceIds: string[],
) {
  for (const filters of invalidationsOf({
    id: '7',
    type: 'queuedChangeChanged',
    data: { changeId, state, deviceIds },
    createdAt: iso(Date.now()),
  }))
    await queryClient.invalidateQueries(filters);
}

describe('the toast of a queued undo', () => {
  it('follows the undo: "not sent yet" gives way to sent, with the command it made', async () => {
    const GOES_AT = '2026-11-21T13:03:20Z';
    const planned = plannedUndo(GOES_AT);
    let change: object = planned.change;
    stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/devices/BAT-1/commands/cmd_new') return json(200, NEXT);
      if (route === 'POST /api/devices/BAT-1/changes') return json(202, planned);
      if (route === 'GET /api/changes/chg_1') return json(200, change);
      return json(200, { commands: [], entries: [], changes: [] });
    });
    const queryClient = await pressUndoNow(REPLACE);
    await screen.findByText(/^Undo not sent yet\. Queued: it goes at 2026-11-21 14:03/);
    // Not "Change undone" while nothing is undone yet.
    expect(screen.getByText(/Undo queued$/)).toBeTruthy();
    expect(screen.queryByText(/Change undone/)).toBeNull();

    const [cancelStep, submitStep] = planned.change.steps;
    change = {
      ...planned.change,
      state: 'sent',
      goesAt: undefined,
      steps: [
        { ...cancelStep, state: 'sent', sentAt: '2026-11-21T13:03:20Z' },
        {
          ...submitStep,
          state: 'sent',
          sentAt: '2026-11-21T13:03:21Z',
          answer: { status: 202, body: { id: 'cmd_back' } },
        },
      ],
    };
    await pushChanged(queryClient, 'chg_1', 'sent', ['BAT-1']);
    expect(
      await screen.findByText(
        /^Undo sent as command cmd_back at 2026-11-21 14:03 \(Europe\/Berlin\).*after waiting for the device's next free call\.$/,
      ),
    ).toBeTruthy();
    expect(screen.queryByText(/not sent yet/)).toBeNull();
  });

  it('follows a queued batch undo to its refusal, with the reason in words', async () => {
    const GOES_AT = '2026-11-21T13:03:20Z';
    const BATCH = {
      kind: 'batch',
      batchCommandId: 'batch_1',
      commands: [{ deviceId: 'BAT-1', commandId: 'cmd_1' }],
      key: 'batch-key',
    } as const;
    const waiting = {
      id: 'chg_bc',
      kind: 'batchCancel',
      state: 'queued',
      deviceIds: ['BAT-1'],
      steps: [
        {
          call: 'batchCancel',
          batchCommandId: 'batch_1',
          deviceIds: ['BAT-1'],
          state: 'waiting',
          plannedAt: GOES_AT,
        },
      ],
      goesAt: GOES_AT,
      undoOf: 'batch-key',
      createdAt: iso(Date.now()),
      updatedAt: iso(Date.now()),
    };
    let change: object = waiting;
    stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/devices/BAT-1/commands/cmd_1')
        return json(200, { ...NEXT, id: 'cmd_1' });
      if (route === 'PUT /api/batches/batch_1/cancel')
        return json(202, {
          queued: { changeId: 'chg_bc', goesAt: GOES_AT, reason: 'no_slot', deviceIds: ['BAT-1'] },
        });
      if (route === 'GET /api/changes/chg_bc') return json(200, change);
      return json(200, { commands: [], entries: [], changes: [] });
    });
    const queryClient = await pressUndoNow(BATCH);
    await screen.findByText(/^Undo of batch batch_1 not sent yet\. Queued: it goes at/);

    const reason = 'The vendor no longer knows batch batch_1.';
    change = {
      ...waiting,
      state: 'failed',
      goesAt: undefined,
      steps: [{ ...waiting.steps[0], state: 'failed' }],
      outcome: { failure: 'refused', detail: reason },
    };
    await pushChanged(queryClient, 'chg_bc', 'failed', ['BAT-1']);
    await vi.waitFor(() =>
      expect(
        screen.getByText(`Undo of batch batch_1 refused by the vendor when it went. ${reason}`),
      ).toBeTruthy(),
    );
  });
});
