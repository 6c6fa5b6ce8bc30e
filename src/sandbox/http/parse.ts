import type { z } from 'zod';
import { invalidRequest } from '../sandbox-error.ts';

/**
 * Parses a request part with a zod schema.
 * @throws SandboxError 400 `INVALID_REQUEST` naming each bad field.
 */
export function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidRequest(result.error, where);
  return result.data;
}
