import { useState } from 'react';
import type { ApiToken } from '#domain/api-tokens.ts';
import { ROLE_NAMES } from '#domain/roles.ts';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { formatUtc } from '#client/lib/time.ts';
import { useRevokeApiToken } from '../api/api-tokens.ts';

/** The account's tokens (never a secret), each revocable after a confirmation. */
export function TokenList({ tokens, nowMs }: { tokens: readonly ApiToken[]; nowMs: number }) {
  const revoke = useRevokeApiToken();
  const [asked, setAsked] = useState<ApiToken | null>(null);
  if (tokens.length === 0)
    return <p className="empty-state">No tokens yet: scripts and other systems cannot act.</p>;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Sites</th>
            <th scope="col">Made by</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id}>
              <th scope="row">{token.name}</th>
              <td>{ROLE_NAMES[token.role]}</td>
              <td>{token.siteIds.length > 0 ? token.siteIds.join(', ') : 'every site'}</td>
              <td>{token.madeBy}</td>
              <td>{formatUtc(token.expiresAt)}</td>
              <td>{token.lastUsedAt ? formatUtc(token.lastUsedAt) : 'never'}</td>
              <td>
                {token.revokedAt ? (
                  `revoked ${formatUtc(token.revokedAt)}${token.revokedBy ? ` by ${token.revokedBy}` : ''}`
                ) : Date.parse(token.expiresAt) <= nowMs ? (
                  'expired'
                ) : (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      revoke.reset();
                      setAsked(token);
                    }}
                  >
                    Revoke<span className="visually-hidden"> {token.name}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {revoke.isError ? (
        <p role="alert" className="notice notice-error">
          {revoke.error.detail}
        </p>
      ) : null}
      {asked ? (
        <ConfirmDialog
          title={`Revoke the token "${asked.name}"?`}
          confirmLabel="Revoke token"
          dismissLabel="Keep token"
          onDismiss={() => setAsked(null)}
          onConfirm={() => {
            revoke.mutate(asked.id);
            setAsked(null);
          }}
        >
          <p>
            Every request with it is refused from now on. Whatever uses it stops working until it is
            given a new token.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
