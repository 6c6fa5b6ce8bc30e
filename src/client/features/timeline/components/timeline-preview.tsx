import { useState } from 'react';
import type { Site } from '#domain/device.ts';
import { useTimelineBars } from '../hooks/use-timeline-bars.ts';
import type { GhostWindow } from '../lib/ghosts.ts';
import type { TimelineViewport } from '../lib/timeline-types.ts';
import { TimelineView } from './timeline-view.tsx';

const ignore = () => undefined;

/**
 * The timeline as a read-only preview of `sites` with `ghostsByDevice` beside their windows,
 * opened on `firstView`; a drag only pans.
 */
export function TimelinePreview(props: {
  sites: readonly Site[];
  ghostsByDevice: ReadonlyMap<string, readonly GhostWindow[]>;
  firstView: { atMs: number; spanMs: number };
  heightPx: number;
}) {
  const [viewport, setViewport] = useState<TimelineViewport>();
  const [utc, setUtc] = useState(false);
  const [nowMs] = useState(() => Date.now());
  const { barsByDevice, overlapIndex } = useTimelineBars(viewport);
  return (
    <div className="timeline-preview">
      <label>
        <input type="checkbox" checked={utc} onChange={(event) => setUtc(event.target.checked)} />{' '}
        Show times in UTC
      </label>
      <TimelineView
        sites={props.sites}
        filter=""
        barsByDevice={barsByDevice}
        overlapIndex={overlapIndex}
        ghostsByDevice={props.ghostsByDevice}
        readOnly
        firstView={props.firstView}
        nowMs={nowMs}
        utc={utc}
        snapMs={60_000}
        selectedBarId={undefined}
        heightPx={props.heightPx}
        onViewportChange={setViewport}
        onCreateWindow={ignore}
        onSelectBar={ignore}
        onMoveBar={ignore}
        onNewCommand={ignore}
      />
    </div>
  );
}
