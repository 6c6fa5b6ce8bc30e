import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliverableAnswer } from '#domain/deliverable.ts';
import { deliverableRequestOf } from '../../api/deliverable.ts';
import { DeliverablePanel } from '../deliverable-panel.tsx';

afterEach(cleanup);

const HOUR_MS = 3_600_000;
const IDS = Array.from({ length: 8 }, (_, i) => `BAT-${i + 1}`);

function answer(extra: Partial<DeliverableAnswer> = {}): DeliverableAnswer {
  return {
    takenAt: '2026-11-21T10:00:00.000Z',
    devices: IDS.length,
    snapshot: { calls: 1, read: IDS.length, deferred: 0 },
    notFollowing: [],
    unknown: [],
    ...extra,
  };
}

const power = (extra: Partial<NonNullable<DeliverableAnswer['power']>> = {}) => ({
  requestedW: 5000,
  durationMs: 2 * HOUR_MS,
  commandedW: 40_000,
  deliverableW: 31_250,
  measured: 8,
  cannotLast: [],
  cannotLastCount: 0,
  notMeasured: [],
  notMeasuredCount: 0,
  ...extra,
});

function renderPanel(
  deliverable: Partial<Parameters<typeof DeliverablePanel>[0]['deliverable']>,
  props: Partial<Parameters<typeof DeliverablePanel>[0]> = {},
) {
  const handlers = { onLeaveOut: vi.fn(), onPutBack: vi.fn(), onRetry: vi.fn() };
  render(
    <DeliverablePanel
      idPrefix="test"
      deviceIds={IDS}
      timeZone="Europe/Berlin"
      leftOut={[]}
      deliverable={{
        data: undefined,
        error: null,
        isFetching: false,
        settling: false,
        ...deliverable,
      }}
      {...handlers}
      {...props}
    />,
  );
  return { ...handlers, panel: screen.getByRole('region', { name: 'Deliverable power' }) };
}

describe('DeliverablePanel', () => {
  it('says it is taking the snapshot while the first answer is on its way', () => {
    const { panel } = renderPanel({ isFetching: true });
    expect(panel.getAttribute('aria-busy')).toBe('true');
    expect(within(panel).getByRole('status').textContent).toBe('Taking a snapshot of 8 devices…');
  });

  it('says the figure as power elsewhere reads, and folds a long list of devices that cannot last', () => {
    const cannotLast = IDS.slice(0, 6).map((deviceId, i) => ({
      deviceId,
      lastsMs: (i + 1) * 10 * 60_000,
      deliverableW: 500,
      capW: 5000,
      limitedBy: 'stateOfCharge' as const,
    }));
    const { panel } = renderPanel({
      data: answer({ power: power({ cannotLast, cannotLastCount: 6 }) }),
    });
    expect(
      within(panel).getByText('Deliverable about 31.3 kW for 2 h of 40 kW commanded'),
    ).toBeTruthy();
    const list = within(panel).getByText('6 devices cannot last the 2 h window').closest('details');
    // More than five: collapsed, opened from its summary by keyboard or pointer.
    expect(list?.open).toBe(false);
    expect(
      within(list as HTMLElement)
        .getByText(/BAT-1/)
        .closest('li')?.textContent,
    ).toBe('BAT-1 lasts 10 min before its cut-off; holds 500 W over the window');
  });

  it('keeps the last figure, said of the devices it was of, while the new selection is read', () => {
    const { panel } = renderPanel(
      { data: answer({ power: power() }), isFetching: true },
      { deviceIds: IDS.slice(0, 7) },
    );
    expect(within(panel).getByRole('status').textContent).toBe(
      'Deliverable about 31.3 kW for 2 h of 40 kW commanded From the latest samples of 8 of 8 devices. Taking a new snapshot for the 7 devices selected now…',
    );
  });

  it('names a site limit that holds a device back, and a device not measured', () => {
    const { panel } = renderPanel({
      data: answer({
        power: power({
          cannotLast: [
            {
              deviceId: 'BAT-2',
              lastsMs: 3 * HOUR_MS,
              deliverableW: 1400,
              capW: 1400,
              limitedBy: 'siteLimit',
            },
          ],
          cannotLastCount: 1,
          notMeasured: [{ deviceId: 'BAT-8', reason: 'silent' }],
          notMeasuredCount: 1,
          measured: 7,
        }),
      }),
    });
    expect(within(panel).getByText(/BAT-2/).closest('li')?.textContent).toBe(
      'BAT-2 gives at most 1.4 kW (its site limit)',
    );
    expect(within(panel).getByText(/BAT-8/).closest('li')?.textContent).toBe(
      'BAT-8 no recent sample (offline or not sampling)',
    );
    expect(within(panel).getByText(/From the latest samples of 7 of 8 devices/)).toBeTruthy();
  });

  it("says when a snapshot whose devices' calls are spent can be taken, and takes it again on request", async () => {
    const user = userEvent.setup();
    const { panel, onRetry } = renderPanel({
      data: answer({
        snapshot: { calls: 0, read: 0, deferred: 8, readableAt: '2026-11-21T10:01:30.000Z' },
        power: power({ measured: 0, deliverableW: 0, notMeasuredCount: 8 }),
      }),
    });
    expect(within(panel).queryByText(/Deliverable about/)).toBeNull();
    expect(within(panel).getByText(/The snapshot could not be taken now/).textContent).toBe(
      "The snapshot could not be taken now: the devices' calls are kept for changes until 11:01:30 (Europe/Berlin).",
    );
    await user.click(within(panel).getByRole('button', { name: 'Take the snapshot again' }));
    expect(onRetry).toHaveBeenCalledOnce();
  });

  it('offers to leave out the flagged devices still selected, and only those', async () => {
    const user = userEvent.setup();
    const { panel, onLeaveOut } = renderPanel({
      data: answer({
        notFollowing: [
          { deviceId: 'BAT-3', notFollowing: 2, of: 3 },
          { deviceId: 'BAT-4', notFollowing: 3, of: 3 },
          { deviceId: 'GONE', notFollowing: 2, of: 3 },
        ],
      }),
    });
    expect(within(panel).getByText(/Set a target battery power/)).toBeTruthy();
    expect(within(panel).getByText('2 devices did not follow their recent commands')).toBeTruthy();
    expect(within(panel).getByText('BAT-4').closest('li')?.textContent).toBe(
      'BAT-4 did not follow 3 of its last 3 commands',
    );
    await user.click(
      within(panel).getByRole('button', { name: 'Leave out 2 devices that did not follow' }),
    );
    expect(onLeaveOut).toHaveBeenCalledWith(['BAT-3', 'BAT-4']);
  });

  it('is not shown for no device, unless some were left out', () => {
    const { container } = render(
      <DeliverablePanel
        idPrefix="test"
        deviceIds={[]}
        timeZone="UTC"
        leftOut={[]}
        deliverable={{ data: undefined, error: null, isFetching: false, settling: false }}
        onLeaveOut={vi.fn()}
        onPutBack={vi.fn()}
        onRetry={vi.fn()}
      />,
    );
    expect(container.textContent).toBe('');
  });
});

describe('deliverableRequestOf', () => {
  const window = {
    startMs: Date.parse('2026-11-21T10:00:00Z'),
    endMs: Date.parse('2026-11-21T12:00:00Z'),
  };

  it('asks with the command once it has a window and a target power, else for the flags alone', () => {
    expect(
      deliverableRequestOf(['A'], {
        properties: ['targetBatteryPowerW', 'dischargeCutoffSocPercent'],
        window,
        powerControl: { targetBatteryPowerW: 3000, dischargeCutoffSocPercent: 20 },
      }),
    ).toEqual({
      deviceIds: ['A'],
      command: {
        powerControl: { targetBatteryPowerW: 3000, dischargeCutoffSocPercent: 20 },
        startTime: '2026-11-21T10:00:00Z',
        endTime: '2026-11-21T12:00:00Z',
      },
    });
    // A cut-off out of range is left out, the target kept.
    expect(
      deliverableRequestOf(['A'], {
        properties: ['targetBatteryPowerW', 'dischargeCutoffSocPercent'],
        window,
        powerControl: { targetBatteryPowerW: 3000, dischargeCutoffSocPercent: 2 },
      }).command?.powerControl,
    ).toEqual({ targetBatteryPowerW: 3000 });
    expect(deliverableRequestOf(['A'], { properties: [], window, powerControl: {} })).toEqual({
      deviceIds: ['A'],
    });
    expect(
      deliverableRequestOf(['A'], {
        properties: ['targetBatteryPowerW'],
        window: null,
        powerControl: { targetBatteryPowerW: 3000 },
      }),
    ).toEqual({ deviceIds: ['A'] });
  });
});
