import type { ReactNode } from 'react';

/** The attributes a field's control needs so its label, hints and error reach assistive tech. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

interface FieldProps {
  id: string;
  label: string;
  /** Lines under the control, read as its description (help, range, UTC equivalent). */
  hints?: ReactNode[];
  error?: string | undefined;
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
}

/** A labelled control with its hints and error, wired with `aria-describedby`/`aria-invalid`. */
export function Field({ id, label, hints = [], error, className, children }: FieldProps) {
  const shownHints = hints.filter((hint) => hint !== null && hint !== undefined && hint !== false);
  const describedBy = [
    ...shownHints.map((_, index) => `${id}-hint-${index}`),
    ...(error ? [`${id}-error`] : []),
  ];
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy.length > 0 ? describedBy.join(' ') : undefined,
      })}
      {shownHints.map((hint, index) => (
        <span key={index} id={`${id}-hint-${index}`} className="field-hint">
          {hint}
        </span>
      ))}
      {error ? (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}
