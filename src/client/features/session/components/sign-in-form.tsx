import { useEffect, useRef, useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import type { SessionInfo, SignInRequestSchema } from '#domain/session.ts';
import { REGION_NAMES, REGIONS } from '#domain/regions.ts';
import type { BffProblemCode } from '#domain/problems.ts';
import { Field } from '#client/components/field.tsx';
import type { ApiError } from '#client/lib/api-error.ts';
import { useSignIn } from '../api/sign-in.ts';

type SignInCode = BffProblemCode | 'network_error';

/**
 * The form checked with `SignInRequestSchema`, loaded at the first check: the sign-in page paints
 * without the classic zod (src/domain/sign-in-mode.ts), and nothing is checked before a field is.
 */
const signInResolver: Resolver<
  z.input<typeof SignInRequestSchema>,
  unknown,
  z.output<typeof SignInRequestSchema>
> = async (values, context, options) => {
  const [{ zodResolver }, { SignInRequestSchema }] = await Promise.all([
    import('@hookform/resolvers/zod'),
    import('#domain/session.ts'),
  ]);
  return zodResolver(SignInRequestSchema)(values, context, options);
};

const TRY_AGAIN = 'Try again in a moment; if it keeps failing, tell your service operator.';

/** Sign-in refusals in words: a map of its own, so the sign-in chunk does not load every code's wording. */
const SIGN_IN_REFUSALS: Partial<Record<SignInCode, (regionName: string) => string>> = {
  invalid_credentials: (region) =>
    `Sign-in refused: the client ID or secret is not valid for ${region}. Check both and the region, then try again.`,
  too_many_sign_ins: () =>
    'Sign-in paused: too many attempts from here or for this client ID. Wait a few minutes, then try again.',
  credentials_sign_in_off: () =>
    'This powerdeck signs people in with their company account, not with client credentials. Reload the page to get its company sign-in.',
  token_endpoint_error: (region) =>
    `Sign-in failed: the ${region} sign-in service answered with an error. ${TRY_AGAIN}`,
  token_endpoint_unreachable: (region) =>
    `Sign-in failed: the ${region} sign-in service could not be reached. ${TRY_AGAIN}`,
  token_endpoint_timeout: (region) =>
    `Sign-in failed: the ${region} sign-in service did not answer in time. ${TRY_AGAIN}`,
  token_unreadable: (region) =>
    `Sign-in failed: the ${region} sign-in service answered with something powerdeck cannot use. Trying again will not help; tell your service operator.`,
  csrf: () => 'Sign-in was not sent from this page as expected. Reload the page and sign in again.',
  network_error: () => 'Sign-in got no answer: check your connection, then try again.',
};

/** Words for a refused sign-in, from its code; never the server's own text (that is for support). */
function signInErrorMessage(error: ApiError, regionName: string): string {
  const words = Object.hasOwn(SIGN_IN_REFUSALS, error.code)
    ? SIGN_IN_REFUSALS[error.code as SignInCode]
    : undefined;
  return words
    ? words(regionName)
    : `Sign-in failed: powerdeck could not sign you in just now. ${TRY_AGAIN}`;
}

/** Region, client ID and secret, sent once to the BFF, which keeps them server-side (docs/architecture.md, BFF surface); the secret is never stored. */
export function SignInForm({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const signIn = useSignIn();
  const {
    register,
    handleSubmit,
    resetField,
    formState: { errors },
  } = useForm({
    resolver: signInResolver,
    defaultValues: { region: 'eu', clientId: '', clientSecret: '', operatorName: '' },
  });

  const [refusal, setRefusal] = useState<string | null>(null);
  // The disabled button dropped focus: the refusal takes it, as the next step is to read it.
  const refusalRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (refusal) refusalRef.current?.focus();
  }, [refusal]);

  const onSubmit = handleSubmit((values) => {
    setRefusal(null);
    resetField('clientSecret');
    signIn.mutate(
      { ...values, operatorName: values.operatorName ? values.operatorName : undefined },
      {
        onSuccess: onSignedIn,
        onError: (error, request) => {
          setRefusal(signInErrorMessage(error, REGION_NAMES[request.region]));
          // Forget the request (it holds the secret); the refusal keeps only words.
          signIn.reset();
        },
      },
    );
  });

  return (
    <form className="stack" onSubmit={onSubmit} noValidate aria-busy={signIn.isPending}>
      {refusal ? (
        <p role="alert" className="notice notice-error" tabIndex={-1} ref={refusalRef}>
          {refusal}
        </p>
      ) : null}
      <Field id="sign-in-region" label="Region" error={errors.region?.message}>
        {(control) => (
          <select {...control} {...register('region')}>
            {REGIONS.map((region) => (
              <option key={region} value={region}>
                {REGION_NAMES[region]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="sign-in-client-id" label="Client ID" error={errors.clientId?.message}>
        {(control) => (
          <input {...control} {...register('clientId')} type="text" spellCheck={false} />
        )}
      </Field>
      <Field id="sign-in-client-secret" label="Client secret" error={errors.clientSecret?.message}>
        {(control) => (
          <input {...control} {...register('clientSecret')} type="password" autoComplete="off" />
        )}
      </Field>
      <Field
        id="sign-in-operator-name"
        label="Operator name (optional)"
        hints={['Recorded with the commands you send, so colleagues know who sent them.']}
        error={errors.operatorName?.message}
      >
        {(control) => (
          <input {...control} {...register('operatorName')} type="text" autoComplete="name" />
        )}
      </Field>
      <button type="submit" className="primary" disabled={signIn.isPending}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
