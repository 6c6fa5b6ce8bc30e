import type { Device } from '#domain/device.ts';
import { siteClockWords } from '#domain/time.ts';
import { QUEUED_LOCK_WORDS } from '../lib/edit-lock.ts';
import type { Bar } from '../lib/bars.ts';
import type { GhostWindow } from '../lib/ghosts.ts';
import type { ShownCard } from '../lib/shown-card.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { windowInZone } from '../lib/window-words.ts';
import { StatusRecordList } from './status-record-list.tsx';

/** Room the card takes at most, in CSS pixels (its CSS max-width, 24rem, and a tall record). */
const CARD_WIDTH_PX = 384;
const CARD_HEIGHT_PX = 220;

/** A card's device, on its site's clock, and where it goes: beside (`x`, `y`), inside the grid's bounds. */
interface CardPlace {
  device: Device;
  timeZone: string;
  x: number;
  y: number;
  boundsWidthPx: number;
  boundsHeightPx: number;
}

/**
 * Hover card of a bar, times in the site's zone: placed beside (`x`, `y`) but flipped to stay
 * inside the grid; it takes no pointer events, so it never covers an action.
 */
function BarTooltip(props: CardPlace & { bar: Bar }) {
  return (
    <TooltipCard {...props}>
      <strong>{props.device.name}</strong>
      <StatusRecordList record={props.bar.record} timeZone={props.timeZone} />
      {props.bar.queuedCancel ? (
        <p>
          Cancel queued: it goes at{' '}
          {siteClockWords(props.bar.queuedCancel.goesAtMs, props.timeZone)}.
        </p>
      ) : null}
    </TooltipCard>
  );
}

/** Hover (or keyboard focus) card of a ghost window, placed as `BarTooltip` is. */
function GhostTooltip(props: CardPlace & { ghost: GhostWindow }) {
  const { ghost } = props;
  return (
    <TooltipCard {...props}>
      <strong>
        {props.device.name}: {ghost.name}, not sent yet
      </strong>
      <dl className="status-record">
        {ghost.powerControl ? (
          <div>
            <dt>Power control</dt>
            <dd>{describePowerControl(ghost.powerControl)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Window</dt>
          <dd>{windowInZone(ghost.startMs, ghost.endMs, props.timeZone)}</dd>
        </div>
        {props.timeZone === 'UTC' ? null : (
          <div>
            <dt>In UTC</dt>
            <dd>{windowInZone(ghost.startMs, ghost.endMs, 'UTC')}</dd>
          </div>
        )}
        {ghost.queued ? (
          <div>
            <dt>Queued</dt>
            <dd>
              Goes at {siteClockWords(ghost.queued.goesAtMs, props.timeZone)}; {QUEUED_LOCK_WORDS}
            </dd>
          </div>
        ) : (
          <div>
            <dt>Check</dt>
            <dd className={ghost.refusal ? 'ghost-refusal' : undefined}>
              {ghost.refusal ? `Refused: ${ghost.refusal}` : 'Can be sent'}
            </dd>
          </div>
        )}
      </dl>
    </TooltipCard>
  );
}

/** The timeline's one card (chosen by lib/shown-card.ts), times in `timeZone`. */
export function WindowCard(props: {
  card: ShownCard;
  timeZone: string;
  boundsWidthPx: number;
  boundsHeightPx: number;
}) {
  const { card, ...placement } = props;
  const common = { device: card.device, x: card.x, y: card.y, ...placement };
  return card.bar ? (
    <BarTooltip bar={card.bar} {...common} />
  ) : (
    <GhostTooltip ghost={card.ghost} {...common} />
  );
}

function TooltipCard(props: {
  x: number;
  y: number;
  boundsWidthPx: number;
  boundsHeightPx: number;
  children: React.ReactNode;
}) {
  const left =
    props.x + 12 + CARD_WIDTH_PX <= props.boundsWidthPx
      ? props.x + 12
      : Math.max(0, props.x - 12 - CARD_WIDTH_PX);
  const below = props.y + 16 + CARD_HEIGHT_PX <= props.boundsHeightPx;
  return (
    <div
      className="timeline-tooltip"
      role="tooltip"
      style={
        below
          ? { left, top: props.y + 16 }
          : { left, bottom: Math.max(0, props.boundsHeightPx - props.y + 8) }
      }
    >
      {props.children}
    </div>
  );
}
