import { describe, expect, it } from 'vitest';
import { chartSurfaceIn, chartSvgFile } from '../svg-export.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * A frame as recharts leaves it once the chart has measured its box: the legend (each icon a
 * 14 px `svg.recharts-surface`) is in the wrapper before the chart's own surface.
 */
function drawnFrame(): HTMLElement {
  const frame = document.createElement('div');
  frame.innerHTML = `
    <div class="recharts-wrapper">
      <div class="recharts-legend-wrapper"><ul><li>
        <svg class="recharts-surface" width="14" height="14" viewBox="0 0 32 32"><path d="M0 16h32"/></svg>
        <span>Completed</span>
      </li></ul></div>
      <svg class="recharts-surface" width="510" height="320" viewBox="0 0 510 320">
        <title></title><desc></desc>
        <g class="recharts-cartesian-axis-tick-labels"><text>12 Jun</text></g>
        <g class="history-window-mark"><rect x="10" width="6" height="40" fill="#0b57d0"/></g>
        <rect class="history-window-active" data-screen-only="" width="10" height="10"/>
      </svg>
    </div>`;
  document.body.append(frame);
  return frame;
}

describe('chartSurfaceIn', () => {
  it("picks the chart's own svg, not the first legend icon before it", () => {
    const frame = drawnFrame();
    expect(frame.querySelector('svg.recharts-surface')?.getAttribute('width')).toBe('14');
    expect(chartSurfaceIn(frame)?.getAttribute('width')).toBe('510');
    frame.remove();
  });

  it('is null before the chart is drawn', () => {
    expect(chartSurfaceIn(document.createElement('div'))).toBeNull();
  });
});

describe('chartSvgFile', () => {
  it('holds the whole chart at its size, a heading, title, desc and the legend in SVG', () => {
    const frame = drawnFrame();
    const svg = chartSurfaceIn(frame);
    if (!svg) throw new Error('no chart surface');
    const file = chartSvgFile(svg, {
      title: 'Outcomes per day',
      subtitle: 'BAT-EU-001-A, 2026-11-16 06:39 to 2026-11-23 06:39 (Europe/Berlin)',
      description: 'Outcomes per day of 1 command: 1 completed.',
      legend: [{ label: 'Completed', color: '#047857', mark: 'area' }],
      background: '#ffffff',
      text: '#16191f',
    });
    frame.remove();
    const doc = new DOMParser().parseFromString(file.text, 'image/svg+xml');
    const root = doc.documentElement;
    expect(root.namespaceURI).toBe(SVG_NS);
    expect(root.getAttribute('width')).toBe('510');
    expect(Number(root.getAttribute('height'))).toBe(file.heightPx);
    const chart = root.querySelector(':scope > svg');
    expect([chart?.getAttribute('width'), chart?.getAttribute('height')]).toEqual(['510', '320']);
    expect(root.querySelector(':scope > title')?.textContent).toBe('Outcomes per day');
    expect(root.querySelector(':scope > desc')?.textContent).toContain('(Europe/Berlin)');
    expect(chart?.querySelectorAll('title, desc')).toHaveLength(0);
    expect(chart?.querySelector('[data-screen-only]')).toBeNull();
    expect(chart?.querySelector('.history-window-mark rect')).not.toBeNull();
    const texts = [...root.querySelectorAll('text')].map((text) => text.textContent);
    expect(texts).toEqual(expect.arrayContaining(['Outcomes per day', '12 Jun', 'Completed']));
    expect(file.heightPx).toBeGreaterThan(320);
  });
});
