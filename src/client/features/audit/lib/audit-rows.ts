import Papa from 'papaparse';
import { ConnectionChangeSchema } from '#domain/connections.ts';
import type { LedgerEntry, LedgerKind, LedgerState } from '#domain/ledger.ts';
import { REGION_NAMES } from '#domain/token.ts';
import { formatInZone, zoneLabel } from '#client/lib/time.ts';

export const KIND_WORDS: Record<LedgerKind, string> = {
  submit: 'Scheduled a command',
  cancel: 'Cancelled a command',
  batch: 'Sent a batch',
  batchCancel: 'Cancelled a batch',
  bind: 'Bound a site',
  unbind: 'Unbound a site',
  connection: 'Changed a vendor connection',
  siteTimeZone: "Set a site's time zone",
  webhook: 'Changed a webhook',
};

export const STATE_WORDS: Record<LedgerState, string> = {
  pending: 'under way',
  succeeded: 'done',
  failed: 'refused',
  unknown: 'outcome unknown',
};

/** One line of the audit: who did what, when, on which site's clock. */
export interface AuditRow {
  id: string;
  /** Display name, else e-mail, else the typed operator name, else the client ID. */
  who: string;
  email: string | undefined;
  /** Issuer and subject of a company sign-in: who it was for good. */
  subject: string | undefined;
  what: string;
  state: string;
  about: string;
  createdAtUtc: string;
  /** The same instant on the site's clock, when the entry knows its site's zone. */
  createdAtSite: string | undefined;
  timeZone: string | undefined;
}

/** A connection change entry in words (registered/replaced, checked or unchecked, refused); undefined for other entries. */
function connectionChange(
  entry: LedgerEntry,
): Pick<AuditRow, 'what' | 'about' | 'state'> | undefined {
  const change = ConnectionChangeSchema.safeParse(entry.request);
  if (entry.kind !== 'connection' || !change.success) return undefined;
  const { previousClientId, clientId } = change.data;
  const register = change.data.change === 'register';
  const code = entry.outcome?.error?.code;
  const state =
    entry.state === 'succeeded'
      ? entry.outcome?.checked === false
        ? 'done, saved without a check'
        : 'done, checked'
      : entry.state === 'failed'
        ? code === 'connection_refused'
          ? 'refused by the token endpoint, not saved'
          : code === 'connection_unchecked'
            ? 'not saved: could not be checked'
            : 'not saved'
        : STATE_WORDS[entry.state];
  return {
    what: register ? 'Registered a vendor connection' : 'Replaced a vendor connection',
    about: [
      REGION_NAMES[entry.region],
      `client ID ${clientId}`,
      ...(previousClientId ? [`was ${previousClientId}`] : []),
    ].join(' · '),
    state,
  };
}

/** Where an entry stands; a refused one with the BFF's words for why (`outcome.error.message`). */
function stateWords(entry: LedgerEntry): string {
  const reason = entry.state === 'failed' ? entry.outcome?.error?.message.trim() : undefined;
  return reason ? `${STATE_WORDS.failed}: ${reason}` : STATE_WORDS[entry.state];
}

export function auditRow(entry: LedgerEntry): AuditRow {
  const about = [
    entry.siteId,
    entry.deviceId,
    entry.deviceIds ? `${entry.deviceIds.length} devices` : undefined,
    entry.commandId,
    entry.batchCommandId,
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
  return {
    id: entry.id,
    who: entry.operator?.name ?? entry.operator?.email ?? entry.operatorName ?? entry.clientId,
    email: entry.operator?.email,
    subject: entry.operator ? `${entry.operator.issuer} ${entry.operator.subject}` : undefined,
    what:
      entry.kind === 'siteTimeZone'
        ? entry.timeZone
          ? `Set a site's time zone to ${zoneLabel(entry.timeZone)}`
          : "Cleared a site's time zone: the vendor's offset again"
        : KIND_WORDS[entry.kind],
    state: stateWords(entry),
    about,
    createdAtUtc: entry.createdAt,
    createdAtSite: entry.timeZone ? formatInZone(entry.createdAt, entry.timeZone) : undefined,
    timeZone: entry.timeZone,
    ...connectionChange(entry),
  };
}

/** The people who appear in `entries`, by subject, for the operator filter. */
export function operatorsOf(entries: readonly LedgerEntry[]): { subject: string; label: string }[] {
  const seen = new Map<string, string>();
  for (const entry of entries)
    if (entry.operator && !seen.has(entry.operator.subject))
      seen.set(
        entry.operator.subject,
        entry.operator.name
          ? `${entry.operator.name}${entry.operator.email ? ` (${entry.operator.email})` : ''}`
          : (entry.operator.email ?? entry.operator.subject),
      );
  return [...seen].map(([subject, label]) => ({ subject, label }));
}

/** The audit as CSV (RFC 4180, CRLF); formula-like cells escaped, as names come from people. */
export function auditCsv(rows: readonly AuditRow[]): string {
  return Papa.unparse(
    {
      fields: [
        'createdAtUtc',
        'createdAtSite',
        'siteTimeZone',
        'operator',
        'email',
        'issuerAndSubject',
        'action',
        'state',
        'about',
      ],
      data: rows.map((row) => [
        row.createdAtUtc,
        row.createdAtSite ?? '',
        row.timeZone ?? '',
        row.who,
        row.email ?? '',
        row.subject ?? '',
        row.what,
        row.state,
        row.about,
      ]),
    },
    { newline: '\r\n', escapeFormulae: true },
  );
}
