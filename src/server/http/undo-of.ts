import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { ProblemError } from './problem.ts';

/** Lower case, as Node has it. */
export const UNDO_OF_HEADER = 'powerdeck-undo-of';

/** Written like `Idempotency-Key` (docs/architecture.md, Ledger); a repeated header fails the pattern. */
const UndoOfHeaderSchema = z
  .string()
  .transform((value) => /^"(.*)"$/.exec(value)?.[1] ?? value)
  .pipe(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,255}$/));

/** Undefined when absent. @throws ProblemError 400 `invalid_undo_of` when malformed. */
export function readUndoOf(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers[UNDO_OF_HEADER];
  if (raw === undefined) return undefined;
  const parsed = UndoOfHeaderSchema.safeParse(Array.isArray(raw) ? raw.join(', ') : raw);
  if (!parsed.success)
    throw new ProblemError(
      400,
      'invalid_undo_of',
      'This undo does not name the change it undoes in a form that can be read. Nothing was sent; reload the page and undo the change again.',
    );
  return parsed.data;
}
