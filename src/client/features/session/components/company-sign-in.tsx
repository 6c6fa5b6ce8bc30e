import { useState } from 'react';
import { REGION_NAMES, REGIONS, type Region } from '#domain/regions.ts';
import { Field } from '#client/components/field.tsx';

/** Company sign-in (docs/security.md): a link, not a form, since CSP `form-action 'self'` would stop a form's redirect to the IdP. */
export function CompanySignIn() {
  const [region, setRegion] = useState<Region>('eu');
  return (
    <div className="stack">
      <Field id="company-sign-in-region" label="Region">
        {(control) => (
          <select
            {...control}
            value={region}
            onChange={(event) => {
              // One of the options above; the classic zod is not loaded on this page (src/domain/sign-in-mode.ts).
              const chosen = REGIONS.find((value) => value === event.target.value);
              if (chosen) setRegion(chosen);
            }}
          >
            {REGIONS.map((value) => (
              <option key={value} value={value}>
                {REGION_NAMES[value]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <a className="button primary" href={`/api/session/oidc?region=${region}`}>
        Sign in with your company account
      </a>
    </div>
  );
}
