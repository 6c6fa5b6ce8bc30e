import { SiteBindingRequestSchema } from '../../../domain/device.ts';
import { LEDGER_SPECS } from '../../ledger/ledger-specs.ts';
import { UPSTREAM_PATHS } from '../../upstream/upstream-api.ts';
import { mirrored } from '../mirror.ts';

/** Site binding (spec 4, 5 rule 5): list, bind and unbind, mirrored as `/api/sites`. */
export const siteRoutes = [
  mirrored({ method: 'GET', path: '/api/sites', upstream: () => ({ path: UPSTREAM_PATHS.sites }) }),
  mirrored({
    method: 'POST',
    path: '/api/sites',
    body: SiteBindingRequestSchema,
    upstream: () => ({ path: UPSTREAM_PATHS.sites }),
    ledger: LEDGER_SPECS.bind,
  }),
  mirrored({
    method: 'DELETE',
    path: '/api/sites',
    body: SiteBindingRequestSchema,
    upstream: () => ({ path: UPSTREAM_PATHS.sites }),
    ledger: LEDGER_SPECS.unbind,
    // The client may no longer read that site's devices: remembered final statuses go.
    afterSuccess: (statuses, { session }) => statuses.forgetClient(session),
  }),
];
