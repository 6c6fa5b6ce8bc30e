import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import {
  VendorConnectionRequestSchema,
  type VendorConnectionInfo,
  type VendorConnectionRequest,
} from '#domain/connections.ts';
import { REGION_NAMES, type Region } from '#domain/token.ts';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { Field } from '#client/components/field.tsx';
import { formatUtc } from '#client/lib/time.ts';
import { useCheckConnection, usePutConnection } from '../api/connections.ts';

/**
 * One region's vendor connection (never its secret), a form to register or replace it (confirmed:
 * every operator acts through it) and Check. The server saves only credentials a token request
 * accepts, unless "Save without checking" is confirmed.
 */
export function ConnectionPanel({
  region,
  current,
}: {
  region: Region;
  current: VendorConnectionInfo | undefined;
}) {
  const put = usePutConnection();
  const check = useCheckConnection();
  const [pending, setPending] = useState<VendorConnectionRequest | null>(null);
  // The credentials the token endpoint could not check, while "Save without checking" is offered.
  const [unchecked, setUnchecked] = useState<VendorConnectionRequest | null>(null);
  const [confirmUnchecked, setConfirmUnchecked] = useState(false);
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm({
    resolver: zodResolver(VendorConnectionRequestSchema),
    defaultValues: { clientId: '', clientSecret: '' },
  });
  const name = REGION_NAMES[region];
  // An outcome belongs to one attempt: typing again clears it (src/client/README.md).
  const forgetOutcome = {
    onChange: () => {
      put.reset();
      setUnchecked(null);
    },
  };

  const save = (credentials: VendorConnectionRequest) => {
    setUnchecked(null);
    put.mutate(
      { region, credentials },
      {
        onSuccess: () => reset({ clientId: '', clientSecret: '' }),
        onError: (error) => {
          if (error.code === 'connection_unchecked')
            setUnchecked({
              clientId: credentials.clientId,
              clientSecret: credentials.clientSecret,
            });
        },
      },
    );
  };
  const onSubmit = handleSubmit((values) => {
    put.reset();
    check.reset();
    setUnchecked(null);
    if (current) setPending(values);
    else save(values);
  });

  return (
    <section className="stack" aria-labelledby={`connection-${region}`}>
      <h2 id={`connection-${region}`}>{name}</h2>
      {current ? (
        <p>
          Client ID <strong>{current.clientId}</strong>, registered {formatUtc(current.updatedAt)}
          {current.updatedBy ? ` by ${current.updatedBy}` : ''}. The secret is kept sealed on the
          server and is never shown again.
        </p>
      ) : (
        <p className="empty-state">
          No connection yet: operators cannot work in {name} until you register the client ID and
          secret the vendor issued.
        </p>
      )}
      {current ? (
        <p className="actions">
          <button
            type="button"
            onClick={() => {
              put.reset();
              check.mutate(region);
            }}
            disabled={check.isPending}
          >
            {check.isPending ? 'Checking…' : 'Check connection'}
          </button>
        </p>
      ) : null}
      {check.isSuccess ? (
        <p role="status" className="notice">
          The {name} token endpoint issued a token with this connection.
        </p>
      ) : null}
      {check.isError ? (
        <p role="alert" className="notice notice-error">
          {check.error.detail}
        </p>
      ) : null}
      <form className="stack" onSubmit={onSubmit} noValidate aria-busy={put.isPending}>
        <Field
          id={`connection-${region}-client-id`}
          label="Client ID"
          error={errors.clientId?.message}
        >
          {(control) => (
            <input
              {...control}
              {...register('clientId', forgetOutcome)}
              type="text"
              spellCheck={false}
            />
          )}
        </Field>
        <Field
          id={`connection-${region}-client-secret`}
          label="Client secret"
          error={errors.clientSecret?.message}
        >
          {(control) => (
            <input
              {...control}
              {...register('clientSecret', forgetOutcome)}
              type="password"
              autoComplete="off"
            />
          )}
        </Field>
        <button type="submit" className="primary" disabled={put.isPending}>
          {put.isPending ? 'Saving…' : current ? 'Replace connection' : 'Save connection'}
        </button>
      </form>
      {put.isSuccess ? (
        put.data.checked ? (
          <p role="status" className="notice notice-success">
            Saved and checked: the {name} token endpoint issued a token with it.
          </p>
        ) : (
          <p role="status" className="notice notice-warning">
            Saved without a check: the {name} token endpoint could not be reached. Use &ldquo;Check
            connection&rdquo; once it can be; if the secret is wrong, operators&rsquo; calls in{' '}
            {name} are refused until you replace it.
          </p>
        )
      ) : null}
      {put.isError ? (
        <div role="alert" className="notice notice-error">
          <p>{put.error.detail}</p>
          {unchecked ? (
            <p className="actions">
              <button type="button" onClick={() => setConfirmUnchecked(true)}>
                Save without checking…
              </button>
            </p>
          ) : null}
        </div>
      ) : null}
      {confirmUnchecked && unchecked ? (
        <ConfirmDialog
          title={`Save the ${name} connection without checking it?`}
          confirmLabel="Save without checking"
          dismissLabel="Don't save"
          onDismiss={() => setConfirmUnchecked(false)}
          onConfirm={() => {
            setConfirmUnchecked(false);
            save({ ...unchecked, saveUnchecked: true });
          }}
        >
          <p>
            powerdeck could not reach the {name} token endpoint to try client ID{' '}
            {unchecked.clientId}. If it or the secret is wrong, every operator&rsquo;s call in{' '}
            {name} is refused until you replace the connection. A secret the endpoint refuses is
            never saved.
          </p>
        </ConfirmDialog>
      ) : null}
      {pending ? (
        <ConfirmDialog
          title={`Replace the ${name} connection?`}
          confirmLabel="Replace connection"
          dismissLabel="Keep current connection"
          onDismiss={() => setPending(null)}
          onConfirm={() => {
            save(pending);
            setPending(null);
          }}
        >
          <p>
            Every operator working in {name} acts through it from now on; the current client ID{' '}
            {current?.clientId} will no longer be used.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
