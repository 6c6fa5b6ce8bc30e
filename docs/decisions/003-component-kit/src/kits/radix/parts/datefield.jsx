import { useState } from 'react';
import { Popover } from 'radix-ui';
import { DayPicker } from 'react-day-picker';
import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import 'react-day-picker/style.css';
import { SITE_ZONE } from '../../../shared/data.js';
import { siteWallTimeToIso, zoneAbbreviation } from '../../../shared/zone.js';

// Radix has no date field: a text input in "yyyy-MM-dd HH:mm" on the site clock (parsed with
// @date-fns/tz, as the app does today) and a react-day-picker calendar in a Radix Popover.
export default function DateFieldPart() {
  const [text, setText] = useState('');
  const iso = siteWallTimeToIso(text, SITE_ZONE);
  const selected = iso ? new TZDate(iso, SITE_ZONE) : undefined;
  return (
    <section className="part">
      <h2>Start</h2>
      <label htmlFor="radix-start">Start (site time)</label>{' '}
      <input
        id="radix-start"
        data-testid="date-input"
        placeholder="yyyy-mm-dd hh:mm"
        aria-describedby="radix-start-zone"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />{' '}
      <span id="radix-start-zone">
        {SITE_ZONE} ({zoneAbbreviation(SITE_ZONE)})
      </span>{' '}
      <Popover.Root>
        <Popover.Trigger aria-label="Calendar">▾</Popover.Trigger>
        <Popover.Portal>
          <Popover.Content className="popover" sideOffset={4}>
            <DayPicker
              mode="single"
              timeZone={SITE_ZONE}
              selected={selected}
              onSelect={(day) => {
                if (!day) return;
                const time = text.slice(11, 16) || '00:00';
                setText(`${format(new TZDate(day, SITE_ZONE), 'yyyy-MM-dd')} ${time}`);
              }}
            />
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
      <output data-testid="datefield-result">{iso ?? ''}</output>
    </section>
  );
}
