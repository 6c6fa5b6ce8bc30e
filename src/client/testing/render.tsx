import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, type RenderResult } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, vi } from 'vitest';
import { createQueryClient } from '../app/query-client.ts';
import { createAppRoutes } from '../app/router.tsx';
import { sendToSignIn } from '../app/safe-next-path.ts';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A query client for one test: nothing retried, nothing shared with other tests. */
export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
}

/** Renders `ui` inside a memory router at `path` and a fresh query client. */
export function renderWithProviders(
  ui: ReactNode,
  { path = '/', queryClient = createTestQueryClient() } = {},
): RenderResult & { queryClient: QueryClient } {
  const router = createMemoryRouter([{ path: '*', element: ui }], { initialEntries: [path] });
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...result, queryClient };
}

/** Renders the whole app at `path` with its real routes, like main.tsx does, in memory. */
export function renderApp(path: string) {
  const queryClient = createQueryClient({ onNotSignedIn: () => sendToSignIn(router, queryClient) });
  queryClient.setDefaultOptions({
    queries: { ...queryClient.getDefaultOptions().queries, retry: false },
  });
  const router = createMemoryRouter(createAppRoutes(queryClient), { initialEntries: [path] });
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...result, router, queryClient };
}
