import type { ApiError } from './api-error.ts';

export interface AppQueryMeta extends Record<string, unknown> {
  /** The caller handles `not_signed_in` itself (the session guard); skip the global redirect. */
  handlesNotSignedIn?: boolean;
}

declare module '@tanstack/react-query' {
  interface Register {
    defaultError: ApiError;
    queryMeta: AppQueryMeta;
    mutationMeta: AppQueryMeta;
  }
}
