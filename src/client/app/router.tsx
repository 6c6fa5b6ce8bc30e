import type { QueryClient } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { RootLayout } from './routes/root-layout.tsx';
import { RouteError } from './routes/route-error.tsx';
import { AppLoading } from './routes/app-loading.tsx';
import { NotFoundRoute } from './routes/not-found.tsx';
import { signInRoute } from './routes/sign-in.tsx';
import type { PageWidthHandle } from './routes/page-width.ts';

/** Pages whose work needs the whole window: a grid, a fleet's table, charts. */
const wide: PageWidthHandle = { pageWidth: 'wide' };

/**
 * The routes; only sign-in is in the initial bundle (docs/architecture.md, Budgets: at most
 * 170 KiB gzip). Features never import each other; route modules compose them.
 */
export function createAppRoutes(queryClient: QueryClient): RouteObject[] {
  return [
    {
      Component: RootLayout,
      HydrateFallback: AppLoading,
      ErrorBoundary: RouteError,
      children: [
        { index: true, element: <Navigate to="/overview" replace /> },
        { path: 'sign-in', ...signInRoute(queryClient) },
        {
          id: 'signed-in',
          // The loader comes with the layout: the session check (and the classic zod it parses
          // with) is not in the sign-in page's first paint (src/domain/sign-in-mode.ts).
          lazy: () =>
            Promise.all([
              import('./routes/require-session.ts'),
              import('./routes/signed-in-layout.tsx'),
            ]).then(([{ requireSession }, { SignedInLayout }]) => ({
              loader: requireSession(queryClient),
              Component: SignedInLayout,
            })),
          children: [
            {
              path: 'overview',
              handle: wide,
              lazy: () =>
                import('./routes/overview.tsx').then(({ OverviewRoute }) => ({
                  Component: OverviewRoute,
                })),
            },
            {
              path: 'sites',
              lazy: () =>
                import('./routes/sites.tsx').then(({ SitesRoute }) => ({ Component: SitesRoute })),
            },
            {
              path: 'sites/:siteId/devices/:deviceId',
              lazy: () =>
                import('./routes/device.tsx').then((module) => module.deviceRoute(queryClient)),
            },
            {
              path: 'batches',
              handle: wide,
              lazy: () =>
                import('./routes/batch-list.tsx').then(({ BatchListRoute }) => ({
                  Component: BatchListRoute,
                })),
            },
            {
              path: 'batches/new',
              handle: wide,
              lazy: () =>
                import('./routes/batch-new.tsx').then(({ BatchNewRoute }) => ({
                  Component: BatchNewRoute,
                })),
            },
            {
              path: 'batches/:batchCommandId',
              handle: wide,
              lazy: () =>
                import('./routes/batch-detail.tsx').then(({ BatchDetailRoute }) => ({
                  Component: BatchDetailRoute,
                })),
            },
            {
              // A batch without a batch ID (its answer was lost), by its ledger entry.
              path: 'batches/entry/:entryId',
              handle: wide,
              lazy: () =>
                import('./routes/batch-detail.tsx').then(({ BatchDetailRoute }) => ({
                  Component: BatchDetailRoute,
                })),
            },
            {
              path: 'fleet-jobs',
              handle: wide,
              lazy: () =>
                import('./routes/fleet-jobs.tsx').then(({ FleetJobListRoute }) => ({
                  Component: FleetJobListRoute,
                })),
            },
            {
              path: 'fleet-jobs/new',
              handle: wide,
              lazy: () =>
                import('./routes/fleet-jobs.tsx').then(({ FleetJobNewRoute }) => ({
                  Component: FleetJobNewRoute,
                })),
            },
            {
              path: 'fleet-jobs/plan',
              handle: wide,
              lazy: () =>
                import('./routes/fleet-jobs.tsx').then(({ FleetPlanRoute }) => ({
                  Component: FleetPlanRoute,
                })),
            },
            {
              path: 'fleet-jobs/:jobId',
              handle: wide,
              lazy: () =>
                import('./routes/fleet-jobs.tsx').then(({ FleetJobDetailRoute }) => ({
                  Component: FleetJobDetailRoute,
                })),
            },
            {
              path: 'sites/:siteId/devices/:deviceId/history',
              handle: wide,
              lazy: () =>
                import('./routes/device-history.tsx').then((module) =>
                  module.historyRoute(queryClient),
                ),
            },
            {
              path: 'audit',
              handle: wide,
              lazy: () =>
                import('./routes/audit.tsx').then(({ AuditRoute }) => ({ Component: AuditRoute })),
            },
            {
              path: 'changes',
              lazy: () =>
                import('./routes/queued-changes.tsx').then(({ QueuedChangesRoute }) => ({
                  Component: QueuedChangesRoute,
                })),
            },
            {
              path: 'connections',
              lazy: () =>
                import('./routes/connections.tsx').then(({ ConnectionsRoute }) => ({
                  Component: ConnectionsRoute,
                })),
            },
            {
              path: 'tokens',
              lazy: () =>
                import('./routes/tokens.tsx').then(({ TokensRoute }) => ({
                  Component: TokensRoute,
                })),
            },
            {
              path: 'webhooks/:endpointId?',
              handle: wide,
              lazy: () =>
                import('./routes/webhooks.tsx').then(({ WebhooksRoute }) => ({
                  Component: WebhooksRoute,
                })),
            },
            {
              path: 'notifications',
              lazy: () =>
                import('./routes/notifications.tsx').then(({ NotificationsRoute }) => ({
                  Component: NotificationsRoute,
                })),
            },
            {
              path: 'timeline',
              handle: wide,
              lazy: () =>
                import('./routes/timeline.tsx').then(({ TimelineRoute }) => ({
                  Component: TimelineRoute,
                })),
            },
          ],
        },
        { path: '*', Component: NotFoundRoute },
      ],
    },
  ];
}

export const createAppRouter = (queryClient: QueryClient) =>
  createBrowserRouter(createAppRoutes(queryClient));
