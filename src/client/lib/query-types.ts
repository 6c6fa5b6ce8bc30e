import type { ApiError } from './api-error.ts';

/** What a query or mutation may tell the app-wide handlers of the query client. */
export interface AppQueryMeta extends Record<string, unknown> {
  /** The caller handles `not_signed_in` itself (the session guard); skip the global redirect. */
  handlesNotSignedIn?: boolean;
}

// One typed error for every query and mutation (TanStack Query `Register`).
declare module '@tanstack/react-query' {
  interface Register {
    defaultError: ApiError;
    queryMeta: AppQueryMeta;
    mutationMeta: AppQueryMeta;
  }
}
