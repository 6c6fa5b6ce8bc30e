/**
 * Per-frame main-thread time from a Chromium trace (the pan figures and their evidence): on the
 * renderer main thread with the most `BeginMainThreadFrame` events (the page under test), frames
 * run from one `BeginMainThreadFrame` to the next (one per frame; a frame can fire several
 * requestAnimationFrame callbacks), and a frame's busy time is the part of top-level `RunTask`
 * events inside it (input, script, style, layout, paint recording, commit: everything the main
 * thread did between two frames).
 */
import { z } from 'zod';

const TraceEventSchema = z.object({
  name: z.string(),
  ph: z.string(),
  pid: z.number(),
  tid: z.number(),
  ts: z.number(),
  dur: z.number().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
});
type TraceEvent = z.infer<typeof TraceEventSchema>;

const TraceSchema = z.union([
  z.object({ traceEvents: z.array(z.unknown()) }),
  z.array(z.unknown()),
]);

/** One frame on the main thread: its length and how much of it the main thread was busy (ms). */
export interface TraceFrame {
  frameMs: number;
  busyMs: number;
}

/** Busy time per event name on the main thread over the traced gesture (ms, self not split). */
export interface TraceFrames {
  frames: TraceFrame[];
  /** Sum of a few named main-thread events over the trace, ms (nested ones counted inside). */
  byEvent: Record<string, number>;
  /**
   * Main-thread time by the event directly inside each task, ms over the trace: what the tasks
   * were (`SimpleWatcher::OnHandleReady` is a MessagePort task, e.g. React's scheduler).
   */
  byTaskKind: Record<string, number>;
}

/** Trace categories that hold the events read here (tasks, frames, devtools timeline). */
export const TRACE_CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'v8.execute',
  'blink.user_timing',
];

/** Emitted once per frame the main thread begins (category devtools.timeline.frame). */
const FRAME_EVENT = 'BeginMainThreadFrame';

/** The scheduler's wrappers around one task: what is directly inside names the task. */
const TASK_WRAPPERS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

const NAMED = [
  'FunctionCall',
  'FireAnimationFrame',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'Commit',
  'HitTest',
  'EventDispatch',
  'MajorGC',
  'MinorGC',
];

/** Parses a trace (`{ traceEvents }` or a bare array) and cuts the main thread into frames. */
export function traceFrames(json: string): TraceFrames {
  const parsed = TraceSchema.parse(JSON.parse(json));
  const raw = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const events: TraceEvent[] = [];
  for (const item of raw) {
    const result = TraceEventSchema.safeParse(item);
    if (result.success) events.push(result.data);
  }
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const frameCount = new Map<string, number>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.name === FRAME_EVENT && mainThreads.has(key))
      frameCount.set(key, (frameCount.get(key) ?? 0) + 1);
  }
  const main = [...frameCount].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!main) return { frames: [], byEvent: {}, byTaskKind: {} };
  const onThread = events.filter((e) => `${e.pid}:${e.tid}` === main).sort((a, b) => a.ts - b.ts);
  const onMain = onThread.filter((e) => e.ph === 'X' && e.dur !== undefined);
  const starts = onThread.filter((e) => e.name === FRAME_EVENT).map((e) => e.ts);
  // Top-level tasks only: a RunTask nested in another would count twice.
  const tasks: Array<[number, number]> = [];
  for (const e of onMain) {
    if (e.name !== 'RunTask') continue;
    const end = e.ts + (e.dur ?? 0);
    const last = tasks[tasks.length - 1];
    if (last && e.ts < last[1]) last[1] = Math.max(last[1], end);
    else tasks.push([e.ts, end]);
  }
  const frames: TraceFrame[] = [];
  let t = 0;
  for (let i = 0; i + 1 < starts.length; i++) {
    const from = starts[i] ?? 0;
    const to = starts[i + 1] ?? 0;
    let busyUs = 0;
    while (t < tasks.length && (tasks[t]?.[1] ?? 0) <= from) t++;
    for (let k = t; k < tasks.length; k++) {
      const [a, b] = tasks[k] ?? [0, 0];
      if (a >= to) break;
      busyUs += Math.max(0, Math.min(b, to) - Math.max(a, from));
    }
    frames.push({ frameMs: (to - from) / 1000, busyMs: busyUs / 1000 });
  }
  const byEvent: Record<string, number> = {};
  for (const e of onMain)
    if (NAMED.includes(e.name)) byEvent[e.name] = (byEvent[e.name] ?? 0) + (e.dur ?? 0) / 1000;
  const byTaskKind: Record<string, number> = {};
  const open: TraceEvent[] = [];
  for (const e of [...onMain].sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))) {
    while (open.length > 0 && e.ts >= (open.at(-1)?.ts ?? 0) + (open.at(-1)?.dur ?? 0)) open.pop();
    const parent = open.at(-1)?.name;
    if (parent !== undefined && TASK_WRAPPERS.has(parent) && !TASK_WRAPPERS.has(e.name))
      byTaskKind[e.name] = (byTaskKind[e.name] ?? 0) + (e.dur ?? 0) / 1000;
    open.push(e);
  }
  return { frames, byEvent, byTaskKind };
}
