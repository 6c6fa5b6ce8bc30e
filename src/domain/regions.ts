/**
 * Regions of the service, each with its own token endpoint (docs/upstream.md, Sources and base
 * paths). Without zod (`token.ts` has the schema), so the sign-in page's region choice does not
 * load it before its first paint (src/domain/sign-in-mode.ts says why).
 */
export const REGIONS = ['eu', 'au'] as const;
export type Region = (typeof REGIONS)[number];

/** Words for a region. */
export const REGION_NAMES: Record<Region, string> = { eu: 'Europe', au: 'Australia' };
