/** Query keys of the bound sites, generic to specific. */
export const siteKeys = {
  all: ['sites'] as const,
  list: () => [...siteKeys.all, 'list'] as const,
};
