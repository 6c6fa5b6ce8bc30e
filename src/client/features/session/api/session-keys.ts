/** Query keys of the BFF session, generic to specific. */
export const sessionKeys = {
  all: ['session'] as const,
  current: () => [...sessionKeys.all, 'current'] as const,
  mode: () => [...sessionKeys.all, 'mode'] as const,
};
