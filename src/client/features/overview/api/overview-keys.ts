import type { Region } from '#domain/token.ts';

/** Query keys of the overview, generic to specific: every overview, one region's. */
export const overviewKeys = {
  all: ['overview'] as const,
  region: (region: Region) => [...overviewKeys.all, region] as const,
};
