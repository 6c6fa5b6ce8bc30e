import { useState } from 'react';
import { DateField, DateInput, DateSegment, I18nProvider, Label } from 'react-aria-components';
import { parseZonedDateTime } from '@internationalized/date';
import { SITE_ZONE } from '../../../shared/data.js';

// Bytes only: the typed field without the calendar popover (DateField instead of DatePicker).
const PLACEHOLDER = parseZonedDateTime(`2026-11-23T00:00[${SITE_ZONE}]`);

export default function DateFieldOnlyPart() {
  const [value, setValue] = useState(null);
  return (
    <section className="part">
      <h2>Start</h2>
      <I18nProvider locale="en-CA">
        <DateField
          value={value}
          onChange={setValue}
          granularity="minute"
          hourCycle={24}
          placeholderValue={PLACEHOLDER}
        >
          <Label>Start (site time)</Label>
          <DateInput>{(segment) => <DateSegment segment={segment} />}</DateInput>
        </DateField>
      </I18nProvider>
      <output data-testid="datefield-result">{value ? value.toAbsoluteString() : ''}</output>
    </section>
  );
}
