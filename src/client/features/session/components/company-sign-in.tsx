import { useState } from 'react';
import { REGION_NAMES, REGIONS, RegionSchema, type Region } from '#domain/token.ts';
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
              const chosen = RegionSchema.safeParse(event.target.value);
              if (chosen.success) setRegion(chosen.data);
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
