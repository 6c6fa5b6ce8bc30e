import type { ReactNode } from 'react';
import type { ApiError } from '../lib/api-error.ts';
import { ErrorAlert } from './error-alert.tsx';
import { Loading } from './loading.tsx';

/** What {@link QueryView} reads of a query (`useQuery`'s result fits, as does a combined one). */
export interface QueryRead<T> {
  isPending: boolean;
  isError: boolean;
  error: ApiError | null;
  data: T | undefined;
  refetch: () => unknown;
}

/**
 * What a read shows: a {@link Loading} line while it has no answer yet, an {@link ErrorAlert} with
 * Try again once it failed, else `children` drawn from its data.
 *
 * @param loading the loading line ("Loading fleet jobs…").
 * @param failed the sentence that says what failed ("Could not read the fleet jobs.").
 */
export function QueryView<T>({
  query,
  loading,
  failed,
  children,
}: {
  query: QueryRead<T>;
  loading: string;
  failed: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isError && query.error)
    return <ErrorAlert error={query.error} what={failed} onRetry={() => void query.refetch()} />;
  if (query.isPending || query.data === undefined) return <Loading what={loading} />;
  return children(query.data);
}
