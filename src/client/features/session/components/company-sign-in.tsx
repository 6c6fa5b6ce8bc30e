import { useState } from 'react';
import { REGION_NAMES, REGIONS, RegionSchema, type Region } from '../../../../domain/token.ts';
import { Field } from '../../../components/field.tsx';

/**
 * Company sign-in (docs/security.md): the region to work in and one link to
 * `GET /api/session/oidc`, which sends the browser on to the company's sign-in page and back. A
 * link rather than a form: the page's CSP `form-action 'self'` would stop a form's redirect to
 * the IdP. No script holds anything of the sign-in.
 */
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
