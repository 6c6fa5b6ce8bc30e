import { useState } from 'react';
import { DEFAULT_FLEET_ROLLOUT, FleetRolloutSchema, type FleetRollout } from '#domain/fleet-job.ts';
import { Field } from '#client/components/field.tsx';

/** The rollout fields as typed: text, read with `FleetRolloutSchema` on every change. */
export interface RolloutText {
  batchSize: string;
  batchesPerMinute: string;
  abortPercent: string;
}

/** The rollout fields as they open: the domain's default rollout, which protects a fleet. */
export const DEFAULT_ROLLOUT_TEXT: RolloutText = {
  batchSize: String(DEFAULT_FLEET_ROLLOUT.batchSize),
  batchesPerMinute: String(DEFAULT_FLEET_ROLLOUT.batchesPerMinute),
  abortPercent: String(DEFAULT_FLEET_ROLLOUT.abortPercent),
};

/** What a field that breaks the rollout schema says, in the product's words. */
const ROLLOUT_WORDS: Record<keyof RolloutText, string> = {
  batchSize: 'Enter a whole number from 1 to 50.',
  batchesPerMinute: 'Enter a number from 0.1 to 600.',
  abortPercent: 'Enter a number from 0 to 100.',
};

const ROLLOUT_FIELDS = [
  ['batchSize', 'Devices per batch', 'At most 50, the upstream’s limit for one batch.'],
  ['batchesPerMinute', 'Batches per minute', 'How fast batches are sent, 0.1 to 600.'],
  [
    'abortPercent',
    'Stop when failed or cancelled exceeds (%)',
    'Counted over the devices sent so far; 100 never stops.',
  ],
] as const;

/**
 * A fleet job's rollout as typed (docs/fleet-dispatch.md, Rollout), read with the server's
 * `FleetRolloutSchema`; `rollout` is undefined while a field breaks it.
 */
export function useRollout(initial: RolloutText, onChange?: () => void) {
  const [text, setText] = useState(initial);
  const parsed = FleetRolloutSchema.safeParse({
    batchSize: Number(text.batchSize),
    batchesPerMinute: Number(text.batchesPerMinute),
    abortPercent: Number(text.abortPercent),
  });
  const errorOf = (field: keyof RolloutText): string | undefined =>
    !parsed.success && parsed.error.issues.some((issue) => issue.path[0] === field)
      ? ROLLOUT_WORDS[field]
      : undefined;
  const set = (field: keyof RolloutText, value: string) => {
    setText((previous) => ({ ...previous, [field]: value }));
    onChange?.();
  };
  const rollout: FleetRollout | undefined = parsed.success ? parsed.data : undefined;
  return { text, rollout, errorOf, set };
}

/** The rollout fields of the job form and the plan, each with its hint; `idPrefix` keeps IDs apart. */
export function RolloutFields({
  idPrefix,
  rollout,
}: {
  idPrefix: string;
  rollout: ReturnType<typeof useRollout>;
}) {
  return (
    <div className="form-grid">
      {ROLLOUT_FIELDS.map(([field, label, hint]) => (
        <Field
          key={field}
          id={`${idPrefix}-${field}`}
          label={label}
          hints={[hint]}
          error={rollout.errorOf(field)}
        >
          {(control) => (
            <input
              {...control}
              inputMode="decimal"
              value={rollout.text[field]}
              onChange={(event) => rollout.set(field, event.target.value)}
            />
          )}
        </Field>
      ))}
    </div>
  );
}
