import { Suspense, type ComponentProps } from 'react';
import { lazyChart } from '#client/components/lazy-chart.tsx';
import { Loading } from '#client/components/loading.tsx';
import type { EventPowerChart } from './event-power-chart.tsx';
import type { PowerSocChart } from './power-soc-chart.tsx';

// recharts loads with the first chart shown, not with the page that holds it
// (docs/architecture.md, Budgets): the page's words and tables come first.
const PowerSocChartModule = lazyChart<ComponentProps<typeof PowerSocChart>>(() =>
  import('./power-soc-chart.tsx').then((module) => module.PowerSocChart),
);
const EventPowerChartModule = lazyChart<ComponentProps<typeof EventPowerChart>>(() =>
  import('./event-power-chart.tsx').then((module) => module.EventPowerChart),
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
