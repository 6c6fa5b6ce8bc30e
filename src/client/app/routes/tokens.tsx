import { useState } from 'react';
import { QueryView } from '../../components/query-view.tsx';
import { useApiTokens } from '../../features/api-tokens/api/api-tokens.ts';
import { TokenList } from '../../features/api-tokens/components/token-list.tsx';
import { TokenMaker } from '../../features/api-tokens/components/token-maker.tsx';
import { usePermission } from './use-permission.ts';

/**
 * `/tokens`: the account's API tokens for scripts and other systems (docs/automation.md), for its
 * administrator (the signed-in partner with the credentials form).
 */
export function TokensRoute() {
  const { allowed } = usePermission('administer');
  return (
    <>
      <title>API tokens · powerdeck</title>
      <h1>API tokens</h1>
      {allowed ? (
        <TokensPage />
      ) : (
        <p className="notice">Only an administrator makes and revokes API tokens.</p>
      )}
    </>
  );
}

function TokensPage() {
  // Which tokens have expired, as of opening the page.
  const [nowMs] = useState(() => Date.now());
  return (
    <div className="stack">
      <p className="lead">
        A token lets a script or another system act for this account with a role, on every site or
        only some, until it expires. Send it as <code>Authorization: Bearer</code>.
      </p>
      <TokenMaker />
      <section className="stack" aria-labelledby="token-list">
        <h2 id="token-list">Tokens</h2>
        <QueryView
          query={useApiTokens()}
          loading="Loading the tokens…"
          failed="Could not read the tokens."
        >
          {({ tokens }) => <TokenList tokens={tokens} nowMs={nowMs} />}
        </QueryView>
      </section>
    </div>
  );
}
