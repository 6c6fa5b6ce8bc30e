/* global window, document, requestAnimationFrame */
/**
 * What every timeline bench page exposes to the runner as `window.bench`: mount the
 * fleet and report the time to the first painted frame, unmount, record requestAnimationFrame
 * deltas, and time pointermove handling end to end.
 */
import { generateFleet } from './fleet.js';

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/**
 * @param {{ mount(fleet: ReturnType<typeof generateFleet>, nowMs: number): void, unmount(): void,
 *   scrollTarget(): {x: number, y: number}, panTarget(): {x: number, y: number} }} view
 */
export function exposeBench(view) {
  let frames;
  let moves;
  window.bench = {
    async mount(devices, windowsPerDevice) {
      const nowMs = Date.now();
      const fleet = generateFleet(devices, windowsPerDevice, nowMs);
      await nextFrame();
      const startedAt = performance.now();
      view.mount(fleet, nowMs);
      // Two frames: the one the mount's work lands in, and the one that shows it painted.
      await nextFrame();
      await nextFrame();
      return { ms: performance.now() - startedAt, windows: fleet.windows };
    },
    unmount() {
      view.unmount();
    },
    startFrames() {
      frames = { deltas: [], last: performance.now(), running: true };
      const tick = (now) => {
        if (!frames.running) return;
        frames.deltas.push(now - frames.last);
        frames.last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    stopFrames() {
      frames.running = false;
      return frames.deltas.slice(1);
    },
    startMoves() {
      moves = { durations: [], startedAt: 0 };
      const before = () => {
        moves.startedAt = performance.now();
      };
      const after = () => {
        if (moves.startedAt) moves.durations.push(performance.now() - moves.startedAt);
        moves.startedAt = 0;
      };
      moves.stop = () => {
        window.removeEventListener('pointermove', before, true);
        window.removeEventListener('pointermove', after, false);
      };
      window.addEventListener('pointermove', before, true);
      window.addEventListener('pointermove', after, false);
    },
    stopMoves() {
      moves.stop();
      return moves.durations;
    },
    scrollTarget: () => view.scrollTarget(),
    panTarget: () => view.panTarget(),
    drawTarget: () => view.drawTarget?.(),
    smoothScroll(pixels, target) {
      return new Promise((resolve, reject) => {
        const gpu = window.chrome?.gpuBenchmarking;
        if (!gpu) reject(new Error('chrome.gpuBenchmarking missing (--enable-gpu-benchmarking)'));
        else gpu.smoothScrollBy(pixels, resolve, target.x, target.y, 0, 'down', 2000);
      });
    },
  };
  document.body.dataset.ready = 'true';
}
