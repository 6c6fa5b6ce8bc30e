import { useState } from 'react';
import {
  Button,
  Calendar,
  CalendarCell,
  CalendarGrid,
  DateInput,
  DatePicker,
  DateSegment,
  Dialog,
  Group,
  Heading,
  I18nProvider,
  Label,
  Popover,
  Text,
} from 'react-aria-components';
import { parseZonedDateTime } from '@internationalized/date';
import { SITE_ZONE } from '../../../shared/data.js';

// A ZonedDateTime placeholder makes the typed value a ZonedDateTime in the site zone; hourCycle 24
// and the en-CA locale give "yyyy-mm-dd, HH:mm" whatever the browser's locale; the zone segment
// is part of the field.
const PLACEHOLDER = parseZonedDateTime(`2026-11-23T00:00[${SITE_ZONE}]`);

export default function DateFieldPart() {
  const [value, setValue] = useState(null);
  return (
    <section className="part">
      <h2>Start</h2>
      <I18nProvider locale="en-CA">
        <DatePicker
          value={value}
          onChange={setValue}
          granularity="minute"
          hourCycle={24}
          placeholderValue={PLACEHOLDER}
        >
          <Label>Start (site time)</Label>
          <Group>
            <DateInput data-testid="date-input">
              {(segment) => <DateSegment segment={segment} />}
            </DateInput>
            <Button aria-label="Calendar">▾</Button>
          </Group>
          <Text slot="description">{SITE_ZONE}</Text>
          <Popover>
            <Dialog>
              <Calendar>
                <header>
                  <Button slot="previous">◀</Button>
                  <Heading />
                  <Button slot="next">▶</Button>
                </header>
                <CalendarGrid>{(date) => <CalendarCell date={date} />}</CalendarGrid>
              </Calendar>
            </Dialog>
          </Popover>
        </DatePicker>
      </I18nProvider>
      <output data-testid="datefield-result">{value ? value.toAbsoluteString() : ''}</output>
    </section>
  );
}
