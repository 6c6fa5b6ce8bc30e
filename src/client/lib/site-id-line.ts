import { z } from 'zod';
import { SiteIdSchema } from '#domain/ids.ts';

/** The Plant IDs of a sites field as typed: separated by commas or spaces; empty: none. */
export function siteIdsOfLine(line: string): string[] {
  return line.split(/[\s,]+/).filter((id) => id !== '');
}

/** A sites field (an API token's, a webhook endpoint's): every ID in it a Plant ID. */
export const SiteIdLineSchema = z
  .string()
  .refine((line) => siteIdsOfLine(line).every((id) => SiteIdSchema.safeParse(id).success), {
    error: 'Sites are Plant IDs separated by commas or spaces, such as PLANT-1, PLANT-2',
  });
