import { AuditView } from '../../features/audit/components/audit-view.tsx';
import { auditSearchParams, parseAuditSearch } from '../../features/audit/lib/audit-search.ts';
import { useSearchState } from './use-search-state.ts';

/** `/audit`: who did what through powerdeck, from the ledger; filters in the URL. */
export function AuditRoute() {
  const [search, onSearchChange] = useSearchState(parseAuditSearch, auditSearchParams);
  return (
    <>
      <title>Audit · powerdeck</title>
      <h1>Audit</h1>
      <p className="lead">
        Every change made through powerdeck, with the person who made it as they were known at that
        time.
      </p>
      <AuditView search={search} onSearchChange={onSearchChange} />
    </>
  );
}
