import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError, type ApiError } from '../lib/api-error.ts';
import type { AppQueryMeta } from '../lib/query-types.ts';

const MAX_RETRIES = 2;

/** Retries only what may pass on a second try: no answer, 5xx, 429. A 4xx is an answer. */
function shouldRetry(failureCount: number, error: ApiError): boolean {
  if (failureCount >= MAX_RETRIES) return false;
  return error.status === 0 || error.status === 429 || error.status >= 500;
}

/** The app's query client; a 401 `not_signed_in` calls `onNotSignedIn` unless the caller handles it (`meta`). */
export function createQueryClient({ onNotSignedIn }: { onNotSignedIn: () => void }): QueryClient {
  const onError = (error: unknown, meta: AppQueryMeta | undefined) => {
    if (isApiError(error, 'not_signed_in') && !meta?.handlesNotSignedIn) onNotSignedIn();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => onError(error, query.meta) }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => onError(error, mutation.meta),
    }),
    defaultOptions: {
      queries: { staleTime: 10_000, retry: shouldRetry },
      mutations: { retry: false },
    },
  });
}
