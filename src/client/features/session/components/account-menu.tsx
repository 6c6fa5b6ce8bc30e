import { useRef, useState } from 'react';
import { NavLink, useLocation } from 'react-router';
import { ROLE_NAMES } from '#domain/roles.ts';
import { REGION_NAMES } from '#domain/token.ts';
import { useSession } from '../api/get-session.ts';
import { useSignOut } from '../api/sign-out.ts';

const PANEL_ID = 'account-menu';

/** A page of the account's own settings, shown in the menu rather than the main navigation. */
export interface AccountLink {
  to: string;
  label: string;
}

/**
 * Who is signed in, with the account's own pages (`links`) and sign-out behind one button, so
 * the header keeps to one line at 1280 px. A disclosure of links and a button (the browser's
 * popover: Escape, a click outside and focus return are its own), not an ARIA menu, which is
 * for commands. `onSignedOut` gets the IdP's logout URL when its session should end too.
 */
export function AccountMenu({
  links,
  onSignedOut,
}: {
  links: readonly AccountLink[];
  onSignedOut: (logoutUrl?: string) => void;
}) {
  const session = useSession();
  const signOut = useSignOut({ onSettled: onSignedOut });
  const panel = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  const { pathname } = useLocation();
  // On one of its pages the button is marked as the main navigation marks its page.
  const here = links.some(({ to }) => pathname === to || pathname.startsWith(`${to}/`));
  const data = session.data;
  const name = data?.operator
    ? (data.operator.name ?? data.operator.email ?? data.operator.subject)
    : (data?.operatorName ?? data?.clientId);
  return (
    <div className="account-menu">
      <button
        type="button"
        className={here ? 'account-menu-button account-menu-here' : 'account-menu-button'}
        popoverTarget={PANEL_ID}
        aria-expanded={open}
      >
        <span className="visually-hidden">Account: </span>
        {name ? <strong>{name}</strong> : null}
        {data ? <span className="account-menu-region">{REGION_NAMES[data.region]}</span> : null}
        <span className="account-menu-caret" aria-hidden="true">
          ▾
        </span>
      </button>
      <div
        id={PANEL_ID}
        ref={panel}
        popover="auto"
        className="account-menu-panel"
        onToggle={(event) => setOpen(event.newState === 'open')}
      >
        {data ? (
          <dl className="session-who" aria-label="Signed in">
            {data.operator ? (
              <>
                <div>
                  <dt>Operator</dt>
                  <dd>
                    <strong>{name}</strong>
                    {data.operator.email && data.operator.email !== name ? (
                      <span> {data.operator.email}</span>
                    ) : null}
                  </dd>
                </div>
                {data.role ? (
                  <div>
                    <dt>Role</dt>
                    <dd>{ROLE_NAMES[data.role]}</dd>
                  </div>
                ) : null}
              </>
            ) : (
              <>
                {data.operatorName ? (
                  <div>
                    <dt>Operator</dt>
                    <dd>
                      <strong>{data.operatorName}</strong>
                    </dd>
                  </div>
                ) : null}
                <div>
                  <dt>Client ID</dt>
                  <dd>{data.operatorName ? data.clientId : <strong>{data.clientId}</strong>}</dd>
                </div>
              </>
            )}
            <div>
              <dt>Region</dt>
              <dd>{REGION_NAMES[data.region]}</dd>
            </div>
          </dl>
        ) : null}
        {links.length > 0 ? (
          <nav aria-label="Account">
            <ul>
              {links.map(({ to, label }) => (
                <li key={to}>
                  <NavLink to={to} onClick={() => panel.current?.hidePopover?.()}>
                    {label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          {signOut.isPending ? 'Signing out…' : 'Sign out'}
        </button>
      </div>
    </div>
  );
}
