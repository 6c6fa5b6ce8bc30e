import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useRef, useState } from 'react';
import { describe, expect, it } from 'vitest';
import '../../testing/render.tsx';
import { describedText } from '../../testing/form-fields.ts';
import { DateTimeField, type DateTimeFieldHandle } from '../date-time-field.tsx';
import { Field } from '../field.tsx';

function Harness({ initial, timeZone }: { initial: string; timeZone: string }) {
  const [value, setValue] = useState(initial);
  const handle = useRef<DateTimeFieldHandle>(null);
  return (
    <>
      <Field
        id="start"
        label="Start"
        hints={[`On the ${timeZone} clock`, value ? `UTC ${value}` : null]}
        error={value ? undefined : 'Enter the start date and time'}
        labelledById
      >
        {(control, { labelId }) => (
          <DateTimeField
            {...control}
            aria-labelledby={labelId}
            timeZone={timeZone}
            value={value}
            onChange={setValue}
            ref={handle}
          />
        )}
      </Field>
      <output>{value}</output>
      <button type="button" onClick={() => handle.current?.focus()}>
        Focus start
      </button>
    </>
  );
}

const group = () => screen.getByRole('group', { name: 'Start' });
/** What the field shows, without the bidirectional isolation marks around the time. */
const shown = () => group().textContent?.replace(/[\u2066-\u2069]/g, '');
const segment = (name: RegExp) => within(group()).getByRole('spinbutton', { name });
const output = () => document.querySelector('output')?.textContent;

describe('DateTimeField', () => {
  it("shows the instant on the site's clock in 24-hour form with the zone's offset", () => {
    render(<Harness initial="2026-11-21T01:00:00Z" timeZone="Australia/Adelaide" />);
    expect(shown()).toBe('2026-11-21, 11:30 GMT+10:30');
    expect(segment(/hour/i).textContent).toBe('11');
    expect(describedText(group())).toContain('On the Australia/Adelaide clock');
  });

  it('gives the typed time back as an ISO UTC instant', async () => {
    const user = userEvent.setup();
    render(<Harness initial="2026-11-21T01:00:00Z" timeZone="Australia/Adelaide" />);
    await user.click(segment(/hour/i));
    await user.keyboard('14');
    await user.keyboard('05');
    expect(output()).toBe('2026-11-21T03:35:00Z');
  });

  it('counts a window across the Berlin spring-forward day in real hours', async () => {
    const user = userEvent.setup();
    render(<Harness initial="2026-03-28T23:00:00Z" timeZone="Europe/Berlin" />);
    expect(shown()).toBe('2026-03-29, 00:00 GMT+1');
    await user.click(segment(/hour/i));
    await user.keyboard('01');
    expect(output()).toBe('2026-03-29T00:00:00Z');
    await user.click(segment(/hour/i));
    await user.keyboard('04');
    expect(output()).toBe('2026-03-29T02:00:00Z');
    expect(shown()).toBe('2026-03-29, 04:00 GMT+2');
  });

  it('is empty while cleared, marked invalid with the error in its description, and focusable', async () => {
    const user = userEvent.setup();
    render(<Harness initial="" timeZone="UTC" />);
    expect(output()).toBe('');
    expect(describedText(group())).toContain('Enter the start date and time');
    expect(segment(/year/i).getAttribute('aria-invalid')).toBe('true');
    await user.click(screen.getByRole('button', { name: 'Focus start' }));
    expect(document.activeElement).toBe(segment(/year/i));
  });

  it('opens a calendar that picks the day and keeps the time', async () => {
    const user = userEvent.setup();
    render(<Harness initial="2026-11-21T10:15:00Z" timeZone="UTC" />);
    await user.click(screen.getByRole('button', { name: 'Choose date Start' }));
    const calendar = await screen.findByRole('dialog', { name: /Choose date/ });
    await user.click(within(calendar).getByRole('button', { name: /November 24, 2026/ }));
    expect(output()).toBe('2026-11-24T10:15:00Z');
  });
});
