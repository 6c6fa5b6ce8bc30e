import type { z } from 'zod';
import { namesItsControl } from '#domain/power-control.ts';
import { ProblemError } from './problem.ts';

/**
 * @param where `body`, `query` or `path`, named in the message.
 * @throws ProblemError 400 `invalid_request` naming each offending field; values are never echoed
 *   (a body may carry a secret).
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.slice(0, 10).map((issue) => {
    // A power control's refusal names the control in the product's words.
    if (namesItsControl(issue.message)) return issue.message;
    const field = issue.path.length > 0 ? issue.path.join('.') : where;
    return `${field}: ${issue.message}`;
  });
  throw new ProblemError(400, 'invalid_request', `Invalid ${where}. ${details.join('; ')}`);
}
