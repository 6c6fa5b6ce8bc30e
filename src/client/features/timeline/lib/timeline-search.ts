import { z } from 'zod';
import { UtcTimestampSchema } from '#domain/time.ts';
import { toUtcTimestamp } from '#client/lib/time.ts';
import { DEFAULT_SNAP_MS } from './snap.ts';
import { MAX_SPAN_MS, MIN_SPAN_MS, NOW_AT_FRACTION } from './time-scale.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Snapping steps offered, in minutes. */
export const SNAP_MINUTES = [1, 5, 15, 60] as const;

/**
 * The timeline's view state, all in the URL so a reload keeps it and a link shares it:
 * `q`, `hide`, `utc=1`, `cancelled=hide`, `snap` (minutes), `from` (ISO UTC), `span` (`90m`, `6h`, `7d`).
 */
export interface TimelineSearch {
  q: string;
  hiddenSiteIds: readonly string[];
  utc: boolean;
  showCancelled: boolean;
  snapMinutes: (typeof SNAP_MINUTES)[number];
  from: string | undefined;
  spanMs: number | undefined;
}

export const DEFAULT_TIMELINE_SEARCH: TimelineSearch = {
  q: '',
  hiddenSiteIds: [],
  utc: false,
  showCancelled: true,
  snapMinutes: (DEFAULT_SNAP_MS / MINUTE_MS) as 5,
  from: undefined,
  spanMs: undefined,
};

const SPAN_UNIT_MS = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;

/** `90m`, `6h`, `7d` as ms within the zoom limits; anything else is not a span. */
const SpanSchema = z
  .string()
  .regex(/^\d+(\.\d+)?[mhd]$/)
  .transform((value) => Number(value.slice(0, -1)) * SPAN_UNIT_MS[value.at(-1) as 'm' | 'h' | 'd'])
  .pipe(z.number().min(MIN_SPAN_MS).max(MAX_SPAN_MS));

// A hand-edited or stale link falls back to the defaults field by field instead of failing.
const TimelineSearchSchema = z.object({
  q: z.string().max(200).catch(''),
  hide: z
    .string()
    .transform((value) => value.split(',').filter(Boolean))
    .catch([]),
  utc: z
    .literal('1')
    .transform(() => true)
    .catch(false),
  cancelled: z
    .literal('hide')
    .transform(() => false)
    .catch(true),
  snap: z.coerce
    .number()
    .pipe(z.union(SNAP_MINUTES.map((minutes) => z.literal(minutes))))
    .catch(DEFAULT_TIMELINE_SEARCH.snapMinutes),
  from: UtcTimestampSchema.optional().catch(undefined),
  span: SpanSchema.optional().catch(undefined),
});

/** Reads the view state from search params; unknown or malformed values take their default. */
export function parseTimelineSearch(params: URLSearchParams): TimelineSearch {
  const raw: Record<string, string | undefined> = {};
  for (const key of ['q', 'hide', 'utc', 'cancelled', 'snap', 'from', 'span'])
    raw[key] = params.get(key) ?? undefined;
  const parsed = TimelineSearchSchema.parse(raw);
  return {
    q: parsed.q,
    hiddenSiteIds: parsed.hide,
    utc: parsed.utc,
    showCancelled: parsed.cancelled,
    snapMinutes: parsed.snap,
    from: parsed.from,
    spanMs: parsed.span,
  };
}

/** `90m`, `6h`, `7d`: a span as the URL writes it, to the minute. */
function spanParam(spanMs: number): string {
  if (spanMs % DAY_MS === 0) return `${spanMs / DAY_MS}d`;
  if (spanMs % HOUR_MS === 0) return `${spanMs / HOUR_MS}h`;
  return `${Math.max(1, Math.round(spanMs / MINUTE_MS))}m`;
}

/** Writes the view state as search params, leaving defaults out so links stay short. */
export function timelineSearchParams(search: TimelineSearch): URLSearchParams {
  const params = new URLSearchParams();
  if (search.q) params.set('q', search.q);
  if (search.hiddenSiteIds.length > 0) params.set('hide', search.hiddenSiteIds.join(','));
  if (search.utc) params.set('utc', '1');
  if (!search.showCancelled) params.set('cancelled', 'hide');
  if (search.snapMinutes !== DEFAULT_TIMELINE_SEARCH.snapMinutes)
    params.set('snap', String(search.snapMinutes));
  if (search.from) params.set('from', search.from);
  if (search.spanMs !== undefined) params.set('span', spanParam(search.spanMs));
  return params;
}

/** The view as the search keeps it: left edge to the second, span to the minute. */
export function viewSearch(view: { startMs: number; spanMs: number }): {
  from: string;
  spanMs: number;
} {
  return {
    from: toUtcTimestamp(Math.round(view.startMs / 1000) * 1000),
    spanMs: Math.max(MINUTE_MS, Math.round(view.spanMs / MINUTE_MS) * MINUTE_MS),
  };
}

/** The first view of a search: from `from`, else around `nowMs`; the link's span, else a day. */
export function firstViewOf(
  search: TimelineSearch,
  nowMs: number,
): { atMs: number; spanMs: number } {
  const spanMs = search.spanMs ?? DAY_MS;
  return {
    atMs: search.from ? Date.parse(search.from) + spanMs * NOW_AT_FRACTION : nowMs,
    spanMs,
  };
}
