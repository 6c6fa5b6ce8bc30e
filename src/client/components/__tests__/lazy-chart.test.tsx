import { render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import { lazyChart } from '../lazy-chart.tsx';

function Chart({ title }: { title: string }) {
  return <svg aria-label={title} role="img" />;
}

describe('a chart whose code is a chunk of its own', () => {
  it('renders the chart once its code loads', async () => {
    const LazyChart = lazyChart(() => Promise.resolve(Chart));
    render(
      <Suspense fallback="loading">
        <LazyChart title="Power" />
      </Suspense>,
    );
    expect(await screen.findByRole('img', { name: 'Power' })).toBeTruthy();
  });

  it('says the chart could not load in its place, and the page around it stays', async () => {
    const LazyChart = lazyChart<{ title: string }>(() =>
      Promise.reject(new TypeError('error loading dynamically imported module')),
    );
    render(
      <main>
        <h1>Device</h1>
        <Suspense fallback="loading">
          <LazyChart title="Power" />
        </Suspense>
      </main>,
    );
    expect((await screen.findByRole('status')).textContent).toContain('The chart could not load');
    expect(screen.getByRole('heading', { name: 'Device' })).toBeTruthy();
  });
});
