import { TimelinePage } from '../../features/timeline/components/timeline-page.tsx';
import { SiteClocks } from './site-clock.tsx';
import { usePermission } from './use-permission.ts';
import { WithBoundSites } from './with-bound-sites.tsx';

/** `/timeline`: the timeline editor over every bound site, loaded on demand. */
export function TimelineRoute() {
  const dispatch = usePermission('dispatch');
  return (
    <>
      <title>Timeline · powerdeck</title>
      <WithBoundSites emptyHeading={<h1>Timeline</h1>}>
        {(sites) => (
          <TimelinePage
            sites={sites}
            dispatchRefusal={dispatch.why}
            clockNotice={<SiteClocks sites={sites} />}
          />
        )}
      </WithBoundSites>
    </>
  );
}
