import { z } from 'zod';
import { CANCELLATION_REASONS, COMMAND_STATUSES } from '#domain/command.ts';
import { UtcTimestampSchema } from '#domain/time.ts';
import { deviceHistoryPath } from '#client/lib/device-paths.ts';

/** Range presets of the history view, each ending now. */
export const HISTORY_PRESETS = ['24h', '7d', '30d'] as const;
export type HistoryPreset = (typeof HISTORY_PRESETS)[number];

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

export const HISTORY_PRESET_MS: Record<HistoryPreset, number> = {
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

export const HISTORY_PRESET_WORDS: Record<HistoryPreset | 'custom', string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  custom: 'Custom range',
};

export const HISTORY_SORT_KEYS = ['start', 'status'] as const;
export type HistorySortKey = (typeof HISTORY_SORT_KEYS)[number];

/** The history view's state, all in the URL so a view can be shared: `range`, `from`/`to` (ISO UTC), `status`, `reason`, `sort`, `order`, `page`. */
export interface HistorySearch {
  range: HistoryPreset | 'custom';
  from: string | undefined;
  to: string | undefined;
  status: (typeof COMMAND_STATUSES)[number] | 'all';
  reason: (typeof CANCELLATION_REASONS)[number] | 'all';
  sort: HistorySortKey;
  order: 'asc' | 'desc';
  page: number;
}

export const DEFAULT_HISTORY_SEARCH: HistorySearch = {
  range: '7d',
  from: undefined,
  to: undefined,
  status: 'all',
  reason: 'all',
  sort: 'start',
  order: 'desc',
  page: 1,
};

// A hand-edited or stale link falls back to the defaults field by field instead of failing.
const HistorySearchSchema = z.object({
  range: z.enum([...HISTORY_PRESETS, 'custom']).catch(DEFAULT_HISTORY_SEARCH.range),
  from: UtcTimestampSchema.optional().catch(undefined),
  to: UtcTimestampSchema.optional().catch(undefined),
  status: z.enum([...COMMAND_STATUSES, 'all']).catch(DEFAULT_HISTORY_SEARCH.status),
  reason: z.enum([...CANCELLATION_REASONS, 'all']).catch(DEFAULT_HISTORY_SEARCH.reason),
  sort: z.enum(HISTORY_SORT_KEYS).catch(DEFAULT_HISTORY_SEARCH.sort),
  order: z.enum(['asc', 'desc']).catch(DEFAULT_HISTORY_SEARCH.order),
  page: z.coerce.number().int().min(1).catch(1),
});

/** Reads the view state from search params; unknown or malformed values take their default. */
export function parseHistorySearch(params: URLSearchParams): HistorySearch {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(DEFAULT_HISTORY_SEARCH)) raw[key] = params.get(key) ?? undefined;
  return HistorySearchSchema.parse(raw) as HistorySearch;
}

/** Writes the view state as search params, leaving defaults out so links stay short. */
export function historySearchParams(search: HistorySearch): URLSearchParams {
  const params = new URLSearchParams();
  const put = (key: keyof HistorySearch, value: string | number | undefined) => {
    if (value !== undefined && value !== DEFAULT_HISTORY_SEARCH[key])
      params.set(key, String(value));
  };
  put('range', search.range);
  if (search.range === 'custom') {
    put('from', search.from);
    put('to', search.to);
  }
  put('status', search.status);
  put('reason', search.reason);
  put('sort', search.sort);
  put('order', search.order);
  put('page', search.page);
  return params;
}

/** The link to a device's history view, optionally with a state other than the default. */
export function historyPath(
  siteId: string,
  deviceId: string,
  search: Partial<HistorySearch> = {},
): string {
  const query = historySearchParams({ ...DEFAULT_HISTORY_SEARCH, ...search }).toString();
  return deviceHistoryPath(siteId, deviceId, query);
}
