import { Link } from 'react-router';
import type { Region } from '#domain/token.ts';
import { REGION_NAMES } from '#domain/token.ts';

/** The empty state of pages needing a vendor connection while none is registered; the page carries on once one is. */
export function NoConnection({ region, isAdmin }: { region: Region; isAdmin: boolean }) {
  const name = REGION_NAMES[region];
  return (
    <section className="stack" aria-labelledby="no-connection-title">
      <h1 id="no-connection-title">No vendor connection for {name} yet</h1>
      <div className="empty-state">
        <p>
          powerdeck reaches the batteries in {name} through the client ID and secret the vendor
          issued for {name}. None is registered yet, so nothing can be read or sent in {name}.
        </p>
        {isAdmin ? (
          <>
            <p>
              As an administrator, you register it: the client ID and secret go to the powerdeck
              server only, are checked with the vendor, and are never shown again.
            </p>
            <p className="actions">
              <Link className="button primary" to="/connections">
                Register the {name} connection
              </Link>
            </p>
          </>
        ) : (
          <p>
            <strong>Only a powerdeck administrator can register it</strong> (someone your company
            sign-in gives the administrator role), on the Connections page. Ask yours; this page
            carries on by itself once it is registered.
          </p>
        )}
      </div>
    </section>
  );
}
