import { z } from 'zod';
import { LEDGER_KINDS, type LedgerKind } from '#domain/ledger.ts';

/** The audit's filters, in the URL: `person` (subject), `action` (ledger kind), `from`/`to` (UTC days, `to` included). */
export interface AuditSearch {
  person: string;
  action: LedgerKind | '';
  from: string;
  to: string;
}

export const DEFAULT_AUDIT_SEARCH: AuditSearch = { person: '', action: '', from: '', to: '' };

const DaySchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

// A hand-edited or stale link falls back to no filter, field by field, instead of failing.
const AuditSearchSchema = z.object({
  person: z.string().max(500).catch(''),
  action: z.enum([...LEDGER_KINDS, '']).catch(''),
  from: DaySchema.catch(''),
  to: DaySchema.catch(''),
});

/** Reads the filters from search params; unknown or malformed values mean no filter. */
export function parseAuditSearch(params: URLSearchParams): AuditSearch {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(DEFAULT_AUDIT_SEARCH)) raw[key] = params.get(key) ?? undefined;
  return AuditSearchSchema.parse(raw);
}

/** Writes the filters as search params, leaving empty ones out so links stay short. */
export function auditSearchParams(search: AuditSearch): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ['person', 'action', 'from', 'to'] as const)
    if (search[key]) params.set(key, search[key]);
  return params;
}
