import { AuditView } from '../../features/audit/components/audit-view.tsx';

/** `/audit`: who did what through powerdeck, from the ledger. */
export function AuditRoute() {
  return (
    <>
      <title>Audit · powerdeck</title>
      <h1>Audit</h1>
      <p className="lead">
        Every change made through powerdeck, with the person who made it as they were known at that
        time.
      </p>
      <AuditView />
    </>
  );
}
