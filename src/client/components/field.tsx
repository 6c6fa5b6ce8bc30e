import type { ReactNode } from 'react';

/** The attributes a field's control needs so its label, hints and error reach assistive tech. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** What a composite control (several focusable parts) needs to be named by the field's label. */
export interface FieldLabel {
  labelId: string;
}

interface FieldProps {
  id: string;
  label: string;
  /** Lines under the control, read as its description (help, range, UTC equivalent). */
  hints?: ReactNode[];
  error?: string | undefined;
  className?: string;
  /** A composite control (`DateTimeField`), named via `aria-labelledby`: a label's `for` names one element only. */
  labelledById?: boolean;
  children: (control: FieldControlProps, label: FieldLabel) => ReactNode;
}

/** A labelled control with its hints and error, wired with `aria-describedby`/`aria-invalid`. */
export function Field({
  id,
  label,
  hints = [],
  error,
  className,
  labelledById = false,
  children,
}: FieldProps) {
  const shownHints = hints.filter((hint) => hint !== null && hint !== undefined && hint !== false);
  const describedBy = [
    ...shownHints.map((_, index) => `${id}-hint-${index}`),
    ...(error ? [`${id}-error`] : []),
  ];
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label id={`${id}-label`} htmlFor={labelledById ? undefined : id}>
        {label}
      </label>
      {children(
        {
          id,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': describedBy.length > 0 ? describedBy.join(' ') : undefined,
        },
        { labelId: `${id}-label` },
      )}
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
