import { lazy, Suspense, type ComponentProps } from 'react';
import { Loading } from '#client/components/loading.tsx';

// recharts loads with the first chart shown, not with the page that holds it
// (docs/architecture.md, Budgets): the page's words and tables come first.
const PowerSocChartModule = lazy(() =>
  import('./power-soc-chart.tsx').then((module) => ({ default: module.PowerSocChart })),
);
const EventPowerChartModule = lazy(() =>
  import('./event-power-chart.tsx').then((module) => ({ default: module.EventPowerChart })),
);

/** {@link PowerSocChart}, loaded on first render with a loading line meanwhile. */
export function LazyPowerSocChart(props: ComponentProps<typeof PowerSocChartModule>) {
  return (
    <Suspense fallback={<Loading what="Loading the chart…" />}>
      <PowerSocChartModule {...props} />
    </Suspense>
  );
}

/** {@link EventPowerChart}, loaded on first render with a loading line meanwhile. */
export function LazyEventPowerChart(props: ComponentProps<typeof EventPowerChartModule>) {
  return (
    <Suspense fallback={<Loading what="Loading the chart…" />}>
      <EventPowerChartModule {...props} />
    </Suspense>
  );
}
