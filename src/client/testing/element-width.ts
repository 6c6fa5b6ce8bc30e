import { vi } from 'vitest';

/**
 * A `ResizeObserver` that reports every observed element `widthPx` wide at once: happy-dom lays
 * nothing out, so a chart (`useElementWidth`) would otherwise never draw. Undone by the
 * `afterEach` of render.tsx (`vi.unstubAllGlobals`).
 */
export function stubElementWidth(widthPx: number): void {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(private readonly callback: ResizeObserverCallback) {}
      observe(target: Element) {
        const entry = { target, contentRect: { width: widthPx, height: 0 } } as ResizeObserverEntry;
        queueMicrotask(() => this.callback([entry], this as unknown as ResizeObserver));
      }
      unobserve() {}
      disconnect() {}
    },
  );
}
