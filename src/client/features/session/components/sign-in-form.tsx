import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { SignInRequestSchema, type SessionInfo } from '../../../../domain/session.ts';
import { REGION_NAMES, REGIONS } from '../../../../domain/token.ts';
import { Field } from '../../../components/field.tsx';
import type { ApiError } from '../../../lib/api-error.ts';
import { useSignIn } from '../api/sign-in.ts';

/** Words for a refused sign-in: a wrong client ID or secret is said plainly, naming the region. */
function signInErrorMessage(error: ApiError, regionName: string): string {
  if (error.code === 'invalid_credentials')
    return `Sign-in refused: the client ID or secret is not valid for ${regionName}. Check both and the region, then try again.`;
  return `Sign-in failed: ${error.detail}`;
}

/**
 * Region, client ID and secret, sent once to the BFF, which keeps secret and token server-side
 * (docs/architecture.md, BFF surface). The secret field is emptied as soon as it is sent and
 * never stored.
 */
export function SignInForm({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const signIn = useSignIn();
  const {
    register,
    handleSubmit,
    resetField,
    formState: { errors },
  } = useForm({
    resolver: zodResolver(SignInRequestSchema),
    defaultValues: { region: 'eu', clientId: '', clientSecret: '', operatorName: '' },
  });

  const [refusal, setRefusal] = useState<string | null>(null);
  // A refusal takes focus: the Sign in button was disabled while waiting, which drops focus to the
  // page, and the operator's next step is to read why and correct a field.
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
