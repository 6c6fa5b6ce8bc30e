/* global document, window, requestAnimationFrame */
/**
 * The baseline of the pan figures: the least a timeline can do, one canvas drawing the visible
 * rows' bars (fillRect + label) over a scroller of the full height, drag anywhere to pan.
 */
import { exposeBench } from './harness.js';

const HOUR_MS = 3_600_000;
const ROW_PX = 34;
const AXIS_PX = 36;
const LABEL_PX = 200;
const WIDTH_PX = 1000;
const HEIGHT_PX = 600;
const COLORS = {
  received: '#2563eb',
  executing: '#16a34a',
  completed: '#6b7280',
  cancelled: '#dc2626',
};
const container = document.getElementById('root');
let state;

function draw() {
  if (!state) return;
  state.pending = false;
  const { ctx, rows, scroller } = state;
  const top = scroller.scrollTop;
  ctx.clearRect(0, 0, WIDTH_PX, HEIGHT_PX);
  ctx.font = '12px system-ui, sans-serif';
  const first = Math.floor(top / ROW_PX);
  const last = Math.min(rows.length - 1, Math.ceil((top + HEIGHT_PX - AXIS_PX) / ROW_PX));
  const startMs = state.originMs;
  const endMs = startMs + (WIDTH_PX - LABEL_PX) * state.msPerPx;
  for (let i = first; i <= last; i++) {
    const row = rows[i];
    const y = AXIS_PX + i * ROW_PX - top;
    ctx.fillStyle = '#111';
    ctx.fillText(row.name, 8, y + 21);
    for (const bar of row.bars) {
      if (bar.endMs < startMs || bar.startMs > endMs) continue;
      const x = LABEL_PX + (bar.startMs - startMs) / state.msPerPx;
      const w = Math.max(1, (bar.endMs - bar.startMs) / state.msPerPx);
      ctx.fillStyle = COLORS[bar.status];
      ctx.fillRect(x, y + 5, w, ROW_PX - 10);
      ctx.fillStyle = '#fff';
      ctx.fillText(bar.label, x + 4, y + 21, Math.max(0, w - 8));
    }
  }
  ctx.fillStyle = '#f3f4f6';
  ctx.fillRect(0, 0, WIDTH_PX, AXIS_PX);
}

const schedule = () => {
  if (state && !state.pending) {
    state.pending = true;
    requestAnimationFrame(draw);
  }
};

exposeBench({
  mount(fleet, nowMs) {
    const rows = [];
    for (const site of fleet.sites)
      for (const device of site.devices)
        rows.push({
          name: device.name,
          bars: fleet.recordsByDevice.get(device.deviceId).map((r) => ({
            startMs: Date.parse(r.startTime),
            endMs: Date.parse(r.endTime),
            status: r.status,
            label: `${r.powerControl.targetBatteryPowerW / 1000} kW`,
          })),
        });
    const scroller = document.createElement('div');
    scroller.style.cssText = `position:relative;width:${WIDTH_PX}px;height:${HEIGHT_PX}px;overflow-y:auto`;
    const spacer = document.createElement('div');
    spacer.style.height = `${AXIS_PX + rows.length * ROW_PX}px`;
    const canvas = document.createElement('canvas');
    const dpr = window.devicePixelRatio || 1;
    canvas.width = WIDTH_PX * dpr;
    canvas.height = HEIGHT_PX * dpr;
    canvas.style.cssText = `position:sticky;top:0;width:${WIDTH_PX}px;height:${HEIGHT_PX}px;display:block;margin-bottom:-${HEIGHT_PX}px`;
    scroller.append(canvas, spacer);
    container.append(scroller);
    const ctx = canvas.getContext('2d');
    ctx.scale(dpr, dpr);
    state = {
      ctx,
      rows,
      scroller,
      originMs: nowMs - 2 * HOUR_MS,
      msPerPx: (24 * HOUR_MS) / (WIDTH_PX - LABEL_PX),
      pending: false,
    };
    scroller.addEventListener('scroll', schedule, { passive: true });
    canvas.addEventListener('pointerdown', (event) => {
      state.dragX = event.clientX;
      canvas.setPointerCapture(event.pointerId);
    });
    canvas.addEventListener('pointermove', (event) => {
      if (state.dragX === undefined) return;
      state.originMs -= (event.clientX - state.dragX) * state.msPerPx;
      state.dragX = event.clientX;
      schedule();
    });
    canvas.addEventListener('pointerup', () => {
      state.dragX = undefined;
    });
    draw();
  },
  unmount() {
    container.replaceChildren();
    state = undefined;
  },
  scrollTarget: () => ({ x: 500, y: 300 }),
  panTarget: () => ({ x: 600, y: 300 }),
});
