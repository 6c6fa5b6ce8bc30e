import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { LEDGER_KINDS, type LedgerQuery } from '#domain/ledger.ts';
import { ledgerPageQueryOptions } from '#client/commands/api/get-ledger.ts';
import { Field } from '#client/components/field.tsx';
import { QueryView } from '#client/components/query-view.tsx';
import { WordOptions } from '#client/components/word-options.tsx';
import { downloadFile } from '#client/lib/download-file.ts';
import { formatUtc } from '#client/lib/time.ts';
import { auditCsv, auditRow, KIND_WORDS, operatorsOf } from '../lib/audit-rows.ts';
import type { AuditSearch } from '../lib/audit-search.ts';
import { ColumnHeads } from '#client/components/column-heads.tsx';

/** Most entries the audit reads at once (the ledger's page limit). */
const AUDIT_LIMIT = 500;

/** `yyyy-mm-dd` of a date input as the start of that UTC day, ISO 8601; undefined when empty. */
function utcDay(value: string, plusDays = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms + plusDays * 86_400_000).toISOString();
}

/** Who did what (docs/architecture.md, Ledger): latest entries filtered by `search` (lib/audit-search.ts), on site clocks with UTC, as CSV too. */
export function AuditView({
  search,
  onSearchChange,
}: {
  search: AuditSearch;
  onSearchChange: (next: Partial<AuditSearch>) => void;
}) {
  const { person: operator, action: kind, from: fromDay, to: toDay } = search;

  const everyone = useQuery(ledgerPageQueryOptions({ limit: AUDIT_LIMIT }));
  const query: LedgerQuery = {
    limit: AUDIT_LIMIT,
    ...(operator ? { operator } : {}),
    ...(kind ? { kind } : {}),
    ...(utcDay(fromDay) ? { from: utcDay(fromDay) } : {}),
    ...(utcDay(toDay, 1) ? { to: utcDay(toDay, 1) } : {}),
  };
  const page = useQuery(ledgerPageQueryOptions(query));
  const rows = useMemo(() => page.data?.entries.map(auditRow) ?? [], [page.data]);
  const people = useMemo(() => operatorsOf(everyone.data?.entries ?? []), [everyone.data]);
  const filtered = operator !== '' || kind !== '' || fromDay !== '' || toDay !== '';

  return (
    <div className="stack">
      <form
        className="audit-filters"
        aria-label="Filter the audit"
        onSubmit={(e) => e.preventDefault()}
      >
        <Field id="audit-operator" label="Person">
          {(control) => (
            <select
              {...control}
              value={operator}
              onChange={(e) => onSearchChange({ person: e.target.value })}
            >
              <option value="">Everyone</option>
              {people.map((person) => (
                <option key={person.subject} value={person.subject}>
                  {person.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="audit-kind" label="Action">
          {(control) => (
            <select
              {...control}
              value={kind}
              onChange={(e) => {
                const value = e.target.value;
                onSearchChange({ action: LEDGER_KINDS.find((k) => k === value) ?? '' });
              }}
            >
              <WordOptions
                values={LEDGER_KINDS}
                words={KIND_WORDS}
                first={{ value: '', label: 'Every action' }}
              />
            </select>
          )}
        </Field>
        <DayField
          id="audit-from"
          label="From (UTC day)"
          day={fromDay}
          onDayChange={(from) => onSearchChange({ from })}
        />
        <DayField
          id="audit-to"
          label="To (UTC day, included)"
          day={toDay}
          onDayChange={(to) => onSearchChange({ to })}
        />
        <button
          type="button"
          disabled={rows.length === 0}
          onClick={() => downloadFile(auditCsv(rows), 'powerdeck-audit.csv', 'text/csv')}
        >
          Export CSV
        </button>
      </form>
      <QueryView
        query={page}
        loading="Loading the audit…"
        failed="Could not read the audit from the ledger."
      >
        {() =>
          rows.length === 0 ? (
            <p className="empty-state">
              {filtered
                ? 'No change matches these filters. Widen the days or choose everyone and every action.'
                : 'No change has been recorded yet. Every schedule, cancel, batch, site binding and vendor connection change made through powerdeck appears here.'}
            </p>
          ) : (
            <table className="audit-table">
              <caption className="visually-hidden">
                Changes made through powerdeck, newest first ({rows.length}
                {rows.length === AUDIT_LIMIT ? ', the latest only' : ''})
              </caption>
              <ColumnHeads columns={['When (site clock)', 'Who', 'Action', 'About', 'Outcome']} />
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id}>
                    <td>
                      {row.createdAtSite ? (
                        <>
                          {row.createdAtSite} <small>{row.timeZone}</small>
                          <br />
                        </>
                      ) : null}
                      <small>{formatUtc(row.createdAtUtc)}</small>
                    </td>
                    <td>
                      {row.who}
                      {row.email ? (
                        <>
                          <br />
                          <small>{row.email}</small>
                        </>
                      ) : null}
                    </td>
                    <td>{row.what}</td>
                    <td>{row.about}</td>
                    <td>{row.state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </div>
  );
}

/** A day the audit is filtered from or to, a UTC day as `YYYY-MM-DD` ('' for none). */
function DayField({
  id,
  label,
  day,
  onDayChange,
}: {
  id: string;
  label: string;
  day: string;
  onDayChange: (day: string) => void;
}) {
  return (
    <Field id={id} label={label}>
      {(control) => (
        <input {...control} type="date" value={day} onChange={(e) => onDayChange(e.target.value)} />
      )}
    </Field>
  );
}
