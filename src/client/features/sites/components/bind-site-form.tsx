import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useRef, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { ID_PATTERN } from '#domain/ids.ts';
import { Field } from '#client/components/field.tsx';
import { useBindSite } from '../api/bind-site.ts';
import { problemWords } from '#client/lib/problem-words.ts';

const BindSiteFormSchema = z.object({
  siteId: z
    .string()
    .trim()
    .min(1, { error: "Enter the site ID: the Plant ID shown in the vendor's app." })
    .regex(ID_PATTERN, {
      error: 'A site ID has letters, digits, "-" and "_" only (at most 128), such as PLANT-EU-001.',
    }),
});

interface BindSiteFormProps {
  /** Called with the site once bound (or found bound already), e.g. to move focus to it. */
  onBound?: (siteId: string) => void;
}

/**
 * Binds a site by Plant ID (docs/upstream.md, Sites); a refusal takes focus. Typing or a new
 * attempt resets the last outcome (src/client/README.md), so an old refusal never sits beside a new problem.
 */
export function BindSiteForm({ onBound }: BindSiteFormProps) {
  const bindSite = useBindSite();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm({ resolver: zodResolver(BindSiteFormSchema), defaultValues: { siteId: '' } });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    bindSite.reset();
    void handleSubmit(({ siteId }) =>
      bindSite.mutate(siteId, {
        onSuccess: ({ site }) => {
          reset();
          onBound?.(site.siteId);
        },
      }),
    )(event);
  };

  // The Bind button was disabled while waiting, which drops focus to the page: a refusal takes it.
  const refusal = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (bindSite.isError) refusal.current?.focus();
  }, [bindSite.isError, bindSite.submittedAt]);

  return (
    <form className="bind-site-form" onSubmit={onSubmit} noValidate>
      <div className="inline-form">
        <Field
          id="bind-site-id"
          label="Site ID"
          // An example in the hint, not a placeholder: a greyed ID in the field reads as a value.
          hints={["The Plant ID shown in the vendor's app, such as PLANT-EU-001"]}
          error={errors.siteId?.message}
        >
          {(control) => (
            <input
              {...control}
              {...register('siteId', { onChange: () => bindSite.reset() })}
              type="text"
              spellCheck={false}
              autoComplete="off"
            />
          )}
        </Field>
        <button type="submit" className="primary" disabled={bindSite.isPending}>
          {bindSite.isPending ? 'Binding…' : 'Bind'}
        </button>
      </div>
      {bindSite.isError ? (
        <p role="alert" className="notice notice-error" tabIndex={-1} ref={refusal}>
          Could not bind {bindSite.variables}: {problemWords(bindSite.error)}
        </p>
      ) : null}
      {bindSite.isSuccess ? (
        <p role="status" className="notice notice-success">
          {bindSite.data.alreadyBound
            ? `${bindSite.data.site.siteId} (${bindSite.data.site.name}) was already bound.`
            : `Bound ${bindSite.data.site.siteId} (${bindSite.data.site.name}).`}
        </p>
      ) : null}
    </form>
  );
}
