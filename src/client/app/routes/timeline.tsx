import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { TimelinePage } from '../../features/timeline/components/timeline-page.tsx';
import {
  parseTimelineSearch,
  timelineSearchParams,
} from '../../features/timeline/lib/timeline-search.ts';
import { usePermission } from './use-permission.ts';
import { WithBoundSites } from './with-bound-sites.tsx';

/**
 * `/timeline`: the timeline editor over every bound site, loaded on demand. Its filters and view
 * (zoom and position) live in the URL's search params, so a reload keeps them and a link shares
 * them; each change replaces the history entry, so Back leaves the timeline.
 */
export function TimelineRoute() {
  const dispatch = usePermission('dispatch');
  const [params, setParams] = useSearchParams();
  const search = useMemo(() => parseTimelineSearch(params), [params]);
  return (
    <>
      <title>Timeline · powerdeck</title>
      <WithBoundSites emptyHeading={<h1>Timeline</h1>}>
        {(sites) => (
          <TimelinePage
            sites={sites}
            dispatchRefusal={dispatch.why}
            search={search}
            onSearchChange={(next) =>
              // From the params as they are now: two changes before a render both stay.
              setParams(
                (current) => timelineSearchParams({ ...parseTimelineSearch(current), ...next }),
                { replace: true },
              )
            }
          />
        )}
      </WithBoundSites>
    </>
  );
}
