import { TimelinePage } from '../../features/timeline/components/timeline-page.tsx';
import {
  parseTimelineSearch,
  timelineSearchParams,
} from '../../features/timeline/lib/timeline-search.ts';
import { SiteClocks } from './site-clock.tsx';
import { usePermission } from './use-permission.ts';
import { useSearchState } from './use-search-state.ts';
import { WithBoundSites } from './with-bound-sites.tsx';

/** `/timeline`: the timeline editor over every bound site, loaded on demand; its view in the URL. */
export function TimelineRoute() {
  const dispatch = usePermission('dispatch');
  const [search, onSearchChange] = useSearchState(parseTimelineSearch, timelineSearchParams);
  return (
    <>
      <title>Timeline · powerdeck</title>
      <WithBoundSites emptyHeading={<h1>Timeline</h1>}>
        {(sites) => (
          <TimelinePage
            sites={sites}
            dispatchRefusal={dispatch.why}
            search={search}
            onSearchChange={onSearchChange}
            clockNotice={<SiteClocks sites={sites} />}
          />
        )}
      </WithBoundSites>
    </>
  );
}
