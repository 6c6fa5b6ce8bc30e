import { useState } from 'react';
import { SITE_ZONE } from '../../../shared/data.js';
import { siteWallTimeToIso } from '../../../shared/zone.js';

export default function DateFieldPart() {
  const [iso, setIso] = useState('');
  return (
    <section className="part">
      <h2>Start</h2>
      <label>
        Start ({SITE_ZONE}){' '}
        <input
          type="datetime-local"
          data-testid="date-input"
          onChange={(e) => setIso(siteWallTimeToIso(e.target.value, SITE_ZONE) ?? '')}
        />
      </label>
      <output data-testid="datefield-result">{iso}</output>
    </section>
  );
}
