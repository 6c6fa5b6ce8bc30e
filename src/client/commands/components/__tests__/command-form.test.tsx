import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '#client/testing/render.tsx';
import { combinedCapabilityCheck, deviceCapabilityCheck } from '../../lib/capability-checks.ts';
import { combineRanges } from '../../lib/combined-ranges.ts';
import { dateTimeField, describedText, field, shownDateTime } from '#client/testing/form-fields.ts';
import { testDevice as device } from '#client/testing/test-devices.ts';
import { CommandForm, type CommandFormProps } from '../command-form.tsx';

const HOUR_MS = 3_600_000;
const wide = device('BAT-A', { targetBatteryPowerW: { min: -5000, max: 5000 } });
const narrow = device('BAT-B', {
  targetBatteryPowerW: { min: -3000, max: 2000 },
  chargeCutoffSocPercent: { min: 50, max: 100 },
});

function renderForm(overrides: Partial<CommandFormProps>) {
  const onSubmit = vi.fn();
  // A window starting in two hours on whole minutes, so it is never in the past.
  const startMs = Math.ceil((Date.now() + 2 * HOUR_MS) / 60_000) * 60_000;
  const props: CommandFormProps = {
    idPrefix: 'test',
    capabilityCheck: deviceCapabilityCheck(narrow.capabilities),
    timeZone: 'UTC',
    powerControlHelp: 'Set at least one control.',
    initial: { startMs, endMs: startMs + HOUR_MS },
    submitLabel: 'Send',
    pending: false,
    onSubmit,
    ...overrides,
  };
  const view = render(<CommandForm {...props} />);
  return { onSubmit, startMs, props, view };
}

/** Types `typed` as the target battery power, as an operator does, and presses Send. */
async function sendWithTargetPower(user: ReturnType<typeof userEvent.setup>, typed: string) {
  await user.type(field('Target battery power (W)'), typed);
  await user.click(screen.getByRole('button', { name: 'Send' }));
}

/** Waits until the target battery power's description says `words`. */
const targetPowerSays = (words: string) =>
  waitFor(() => expect(describedText(field('Target battery power (W)'))).toContain(words));

describe('CommandForm', () => {
  it("checks one device's ranges, disables what it lacks and sends a valid command", async () => {
    const user = userEvent.setup();
    const { onSubmit, startMs } = renderForm({});
    expect(field('Site export limit (W)')).toHaveProperty('disabled', true);
    expect(describedText(field('Charge cut-off SoC (%)'))).toContain('Range 50% to 100%');

    await sendWithTargetPower(user, '2500');
    await targetPowerSays(
      'Target battery power must be between -3000 and 2000 W on this device (you entered 2500)',
    );
    expect(onSubmit).not.toHaveBeenCalled();

    await user.clear(field('Target battery power (W)'));
    await sendWithTargetPower(user, '-2000');
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toEqual({
      powerControl: { targetBatteryPowerW: -2000 },
      startTime: new Date(startMs).toISOString().replace('.000Z', 'Z'),
      endTime: new Date(startMs + HOUR_MS).toISOString().replace('.000Z', 'Z'),
    });
  });

  it('checks a batch against every device, naming those a value does not fit', async () => {
    const user = userEvent.setup();
    const { onSubmit } = renderForm({
      capabilityCheck: combinedCapabilityCheck(combineRanges([wide, narrow])),
    });
    expect(describedText(field('Target battery power (W)'))).toContain(
      'Fits every device that supports it: -3 kW to 2 kW; some devices accept -5 kW to 5 kW.',
    );
    expect(describedText(field('Charge cut-off SoC (%)'))).toContain(
      'not supported by 1 of 2 (BAT-A)',
    );
    await sendWithTargetPower(user, '4000');
    await targetPowerSays('Target battery power 4 kW is outside the range of device: BAT-B.');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('takes a power in kW or W and refuses text it cannot read, never changing a value', async () => {
    const user = userEvent.setup();
    const { onSubmit } = renderForm({});
    await sendWithTargetPower(user, 'abc');
    await targetPowerSays('Type a power in W or kW, like 5000 or 5 kW');
    // What was typed stays on screen: nothing was emptied or changed.
    expect(field('Target battery power (W)')).toHaveProperty('value', 'abc');
    expect(onSubmit).not.toHaveBeenCalled();

    await user.clear(field('Target battery power (W)'));
    await user.type(field('Target battery power (W)'), '-2 kW');
    expect(field('Target battery power (W)')).toHaveProperty('value', '-2 kW');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toMatchObject({
      powerControl: { targetBatteryPowerW: -2000 },
    });
  });

  it("words a value outside the device's range with the range and unit, never a field name", async () => {
    const user = userEvent.setup();
    const { onSubmit } = renderForm({
      capabilityCheck: deviceCapabilityCheck({
        chargeCutoffSocPercent: { min: 50, max: 100 },
        siteImportLimitW: { min: 0, max: 65_535 },
        siteExportLimitW: { min: 0, max: 65_535 },
      }),
    });
    await user.type(field('Charge cut-off SoC (%)'), '101');
    await user.type(field('Site import limit (W)'), '70000');
    await user.type(field('Site export limit (W)'), '-1');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() =>
      expect(describedText(field('Charge cut-off SoC (%)'))).toContain(
        'Charge cut-off SoC must be between 50% and 100% on this device (you entered 101)',
      ),
    );
    expect(describedText(field('Site import limit (W)'))).toContain(
      'Site import limit must be between 0 and 65535 W on this device (you entered 70000)',
    );
    expect(describedText(field('Site export limit (W)'))).toContain(
      'Site export limit must be between 0 and 65535 W on this device (you entered -1)',
    );
    expect(document.body.textContent).not.toMatch(/Percent|LimitW|must be at (most|least)/);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('opens prefilled, focuses the first control, shows pending and closes', async () => {
    const user = userEvent.setup();
    const onCancel = vi.fn();
    const { props, view } = renderForm({
      initial: {
        startMs: Date.parse('2030-03-01T10:00:00Z'),
        endMs: Date.parse('2030-03-01T11:30:00Z'),
        powerControl: { chargeCutoffSocPercent: 80 },
      },
      timeZone: 'Europe/Berlin',
      focusFirstControl: true,
      onCancel,
      cancelLabel: 'Close',
    });
    expect(shownDateTime('Start')).toBe('2030-03-01, 11:00 GMT+1');
    expect(shownDateTime('End')).toBe('2030-03-01, 12:30 GMT+1');
    expect(field('Charge cut-off SoC (%)')).toHaveProperty('value', '80');
    expect(describedText(dateTimeField('Start'))).toContain('UTC 2030-03-01 10:00');
    await waitFor(() => expect(document.activeElement).toBe(field('Target battery power (W)')));

    view.rerender(<CommandForm {...props} pending pendingLabel="Sending…" />);
    expect(screen.getByRole('button', { name: 'Sending…' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('with no control set, says so and moves focus to the first control', async () => {
    const user = userEvent.setup();
    const { onSubmit } = renderForm({});
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Set at least one power control: a command without one is refused.',
    );
    expect(document.activeElement).toBe(field('Target battery power (W)'));
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('reports a window refusal on the start and keeps the command back', async () => {
    const user = userEvent.setup();
    const { onSubmit } = renderForm({ windowCheck: () => 'Refused: overlaps command cmd_1.' });
    await sendWithTargetPower(user, '1000');
    await waitFor(() =>
      expect(describedText(dateTimeField('Start'))).toContain('Refused: overlaps command cmd_1.'),
    );
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("types the window on a site on the vendor's fixed offset and sends it in UTC", async () => {
    const user = userEvent.setup();
    const { onSubmit } = renderForm({
      // Adelaide's summer: Australia/Adelaide would be UTC+10:30; the fixed clock stays +09:30.
      initial: {
        startMs: Date.parse('2030-01-15T01:00:00Z'),
        endMs: Date.parse('2030-01-15T02:00:00Z'),
      },
      timeZone: '+09:30',
    });
    expect(screen.getByText(/Start and end are on the clock/).textContent).toContain(
      'time zone UTC+09:30 (a fixed offset, with no daylight saving time)',
    );
    expect(shownDateTime('Start')).toBe('2030-01-15, 10:30 GMT+9:30');
    expect(describedText(dateTimeField('Start'))).toContain('UTC 2030-01-15 01:00');

    const hour = within(dateTimeField('End')).getByRole('spinbutton', { name: /hour/i });
    await user.click(hour);
    await user.keyboard('13');
    await waitFor(() => expect(shownDateTime('End')).toBe('2030-01-15, 13:30 GMT+9:30'));
    await sendWithTargetPower(user, '1000');
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toMatchObject({
      startTime: '2030-01-15T01:00:00Z',
      endTime: '2030-01-15T04:00:00Z',
    });
  });
});
