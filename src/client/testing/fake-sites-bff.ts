import type { Site } from '#domain/device.ts';
import { siteClockOf } from '#domain/site-clock.ts';
import { zonesOfCountry } from '../features/sites/lib/zone-catalog.ts';
import { json, problem, stubFetch, type RecordedRequest } from './fake-fetch.ts';

interface FakeSitesBffOptions {
  sites: Site[];
  /** What `GET /api/session` answers; a credentials sign-in of `demo-au` unless given. */
  session?: object;
  /** The instant written as the clock's `setAt`. */
  nowIso: string;
  /** Who the BFF records as having set a zone. */
  operatorName?: string;
}

/**
 * A signed-in fake BFF for the site clock screens: the sites (held, so a change shows in the
 * next read), `PUT /api/sites/{siteId}/time-zone` (the site answered with its clock `set`, by
 * `operatorName` at `nowIso`; a zone `Intl` does not know is refused 400) and `DELETE` (the clock
 * worked out again from country and vendor offset, by the domain's rule), empty command
 * histories and an empty ledger. Every request is recorded.
 */
export function fakeSitesBff({
  sites,
  session = { region: 'au', clientId: 'demo-au' },
  nowIso,
  operatorName = 'demo-au',
}: FakeSitesBffOptions) {
  const held = sites.map((site) => ({ ...site }));
  const requests = stubFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, session);
    if (route === 'GET /api/sites') return json(200, { sites: held });
    if (route === 'GET /api/ledger') return json(200, { entries: [] });
    if (/^GET \/api\/devices\/[\w-]+\/commands$/.test(route)) return json(200, { commands: [] });

    const zone = /^(PUT|DELETE) \/api\/sites\/([\w-]+)\/time-zone$/.exec(route);
    const index = held.findIndex((site) => site.siteId === zone?.[2]);
    const site = held[index];
    if (zone && site) {
      const { vendorOffset } = site.clock;
      let next: Site;
      if (zone[1] === 'PUT') {
        const { timeZone } = request.body as { timeZone: string };
        try {
          new Intl.DateTimeFormat('en', { timeZone });
        } catch {
          return problem(400, 'invalid_request', 'Enter a time zone by its name.');
        }
        next = {
          ...site,
          timeZone,
          clock: {
            source: 'set',
            ...(vendorOffset ? { vendorOffset } : {}),
            setBy: operatorName,
            setAt: nowIso,
          },
        };
      } else {
        next = {
          ...site,
          ...siteClockOf({
            countryCode: site.countryCode,
            vendorTimeZone: vendorOffset,
            zonesOfCountry,
            nowMs: Date.parse(nowIso),
          }),
        };
      }
      held[index] = next;
      return json(200, next);
    }
    return problem(404, 'not_found', `no route ${route}`);
  });
  return { requests, sites: held };
}
