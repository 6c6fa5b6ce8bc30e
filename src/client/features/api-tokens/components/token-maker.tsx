import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { ApiTokenRequestSchema, type ApiTokenMade } from '#domain/api-tokens.ts';
import { ROLE_NAMES, RoleSchema } from '#domain/roles.ts';
import { Field } from '#client/components/field.tsx';
import { SiteIdLineSchema, siteIdsOfLine } from '#client/lib/site-id-line.ts';
import { formatUtc } from '#client/lib/time.ts';
import { useMakeApiToken } from '../api/api-tokens.ts';

/** Expiries offered, days: the BFF takes 1 to 365. */
const EXPIRIES = ['30', '90', '180', '365'] as const;

const ROLE_WORDS = {
  viewer: 'reads devices, commands and the audit',
  dispatcher: 'also sends and cancels commands and batches',
  admin: 'also binds and unbinds sites and sets their time zones',
} as const;

/** The form as typed: sites as one line of IDs. */
const TokenFormSchema = z.object({
  name: ApiTokenRequestSchema.shape.name,
  role: RoleSchema,
  sites: SiteIdLineSchema,
  expiresInDays: z.enum(EXPIRIES),
});
type TokenForm = z.infer<typeof TokenFormSchema>;

/**
 * Makes an API token for the account (docs/automation.md): name, role, optional sites, expiry.
 * The secret is shown once, with a copy button, until the administrator has taken it.
 */
export function TokenMaker() {
  const make = useMakeApiToken();
  const [made, setMade] = useState<ApiTokenMade | null>(null);
  const [copied, setCopied] = useState(false);
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<TokenForm>({
    resolver: zodResolver(TokenFormSchema),
    defaultValues: { name: '', role: 'viewer', sites: '', expiresInDays: '90' },
  });

  const onSubmit = handleSubmit((values) => {
    setMade(null);
    setCopied(false);
    const siteIds = siteIdsOfLine(values.sites);
    make.mutate(
      {
        name: values.name,
        role: values.role,
        ...(siteIds.length > 0 ? { siteIds } : {}),
        expiresInDays: Number(values.expiresInDays),
      },
      {
        onSuccess: (answer) => {
          setMade(answer);
          reset();
        },
      },
    );
  });

  const copy = async (secret: string) => {
    await navigator.clipboard.writeText(secret);
    setCopied(true);
  };

  return (
    <section className="stack" aria-labelledby="token-maker">
      <h2 id="token-maker">Make a token</h2>
      <form className="stack" onSubmit={onSubmit} noValidate aria-busy={make.isPending}>
        <Field
          id="token-name"
          label="Name"
          hints={['Who or what uses it, such as "trading desk"']}
          error={errors.name?.message}
        >
          {(control) => <input {...control} {...register('name')} type="text" />}
        </Field>
        <Field id="token-role" label="Role" error={errors.role?.message}>
          {(control) => (
            <select {...control} {...register('role')}>
              {RoleSchema.options.map((role) => (
                <option key={role} value={role}>
                  {ROLE_NAMES[role]}: {ROLE_WORDS[role]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id="token-sites"
          label="Sites (optional)"
          hints={['Plant IDs; empty: every site of the account']}
          error={errors.sites?.message}
        >
          {(control) => (
            <input {...control} {...register('sites')} type="text" spellCheck={false} />
          )}
        </Field>
        <Field id="token-expiry" label="Expires after" error={errors.expiresInDays?.message}>
          {(control) => (
            <select {...control} {...register('expiresInDays')}>
              {EXPIRIES.map((days) => (
                <option key={days} value={days}>
                  {days} days
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" className="primary" disabled={make.isPending}>
          {make.isPending ? 'Making…' : 'Make token'}
        </button>
      </form>
      {make.isError ? (
        <p role="alert" className="notice notice-error">
          {make.error.detail}
        </p>
      ) : null}
      {made ? (
        <div role="status" className="notice notice-warning stack">
          <p>
            Token <strong>{made.token.name}</strong> made; it expires{' '}
            {formatUtc(made.token.expiresAt)}. Copy it now: it is shown this once and cannot be read
            again. Anyone who holds it acts as a {ROLE_NAMES[made.token.role]} of this account.
          </p>
          <p>
            <code aria-label="Token secret">{made.secret}</code>
          </p>
          <p className="actions">
            <button type="button" onClick={() => void copy(made.secret)}>
              {copied ? 'Copied' : 'Copy token'}
            </button>
            <button type="button" onClick={() => setMade(null)}>
              I have kept it
            </button>
          </p>
        </div>
      ) : null}
    </section>
  );
}
