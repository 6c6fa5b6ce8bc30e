import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * An endpoint's signing secret, shown this once (after adding the endpoint or rotating its
 * secret) with a Copy button; takes focus when shown, as the outcome of the action. The secret is
 * the page's state only: `onKept` drops it.
 */
export function SecretOnce({
  secret,
  children,
  onKept,
}: {
  secret: string;
  /** What was done, before the secret ("Endpoint added for https://…"). */
  children: ReactNode;
  onKept: () => void;
}) {
  // Which secret was copied: a new one (another rotation) starts uncopied.
  const [copiedSecret, setCopiedSecret] = useState<string | null>(null);
  const copied = copiedSecret === secret;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), [secret]);
  const copy = async () => {
    await navigator.clipboard.writeText(secret);
    setCopiedSecret(secret);
  };
  return (
    <div
      ref={ref}
      role="status"
      tabIndex={-1}
      className="notice notice-warning stack"
      aria-labelledby="webhook-secret-title"
    >
      <p id="webhook-secret-title">
        <strong>Signing secret: copy it now. You will not see it again.</strong>
      </p>
      {children}
      <p>
        <code aria-label="Signing secret" className="webhook-secret">
          {secret}
        </code>
      </p>
      <p className="actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy secret'}
        </button>
        <button type="button" onClick={onKept}>
          I have kept it
        </button>
      </p>
    </div>
  );
}
