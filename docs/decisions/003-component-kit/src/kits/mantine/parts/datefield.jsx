import { useState } from 'react';
import { DateInput } from '@mantine/dates';
import '@mantine/core/styles/Input.css';
import '@mantine/core/styles/Popover.css';
import '@mantine/core/styles/UnstyledButton.css';
import '@mantine/dates/styles.css';
import { SITE_ZONE } from '../../../shared/data.js';
import { siteWallTimeToIso, zoneAbbreviation } from '../../../shared/zone.js';

// Mantine 9 dates have no time zone: values are wall-clock strings ("YYYY-MM-DD HH:mm:ss"), so
// the site zone is shown as text and applied by the app (@date-fns/tz) when sending to the API.
// DateInput (typed) rather than DateTimePicker, which is a button that opens a picker.
export default function DateFieldPart() {
  const [value, setValue] = useState(null);
  const iso = value ? siteWallTimeToIso(value, SITE_ZONE) : null;
  return (
    <section className="part">
      <h2>Start</h2>
      <DateInput
        label="Start (site time)"
        description={`${SITE_ZONE} (${zoneAbbreviation(SITE_ZONE)})`}
        valueFormat="YYYY-MM-DD HH:mm"
        withTime
        placeholder="yyyy-mm-dd hh:mm"
        value={value}
        onChange={setValue}
        data-testid="date-input"
      />
      <output data-testid="datefield-result">{iso ?? ''}</output>
    </section>
  );
}
