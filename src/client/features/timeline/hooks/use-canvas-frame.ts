import { useCallback, useEffect, useRef, type RefObject } from 'react';
import { drawFrame, type FrameState } from '../lib/draw.ts';

/** Builds the frame to draw for a canvas of `widthPx` x `heightPx` CSS pixels at `timeMs`. */
export type FrameSource = (widthPx: number, heightPx: number, timeMs: number) => FrameState;

/**
 * Draws the canvas from `sourceRef`: `drawNow` after a render, `requestDraw` once per animation
 * frame for pan and scroll; frames run only while transitions do, so an idle timeline costs nothing.
 */
export function useCanvasFrame(
  canvasRef: RefObject<HTMLCanvasElement | null>,
  sourceRef: RefObject<FrameSource | undefined>,
): { requestDraw: () => void; drawNow: () => void } {
  const rafRef = useRef(0);

  const draw = useCallback(
    (timeMs: number): boolean => {
      const canvas = canvasRef.current;
      const ctx = canvas?.getContext('2d');
      const source = sourceRef.current;
      if (!canvas || !ctx || !source) return false;
      const dpr = window.devicePixelRatio || 1;
      const width = canvas.clientWidth;
      const height = canvas.clientHeight;
      if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
        canvas.width = Math.round(width * dpr);
        canvas.height = Math.round(height * dpr);
      }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      const frame = source(width, height, timeMs);
      const labels = drawFrame(ctx, frame);
      // The axis labels as drawn: browser tests check them for overlap, which pixels cannot tell.
      const axis = labels
        .map((l) => `${l.tier}|${Math.round(l.xPx)}|${Math.ceil(l.widthPx)}|${l.text}`)
        .join('\n');
      if (canvas.dataset.axisLabels !== axis) canvas.dataset.axisLabels = axis;
      return frame.transitions !== undefined && frame.transitions.size > 0;
    },
    [canvasRef, sourceRef],
  );

  const requestDraw = useCallback(() => {
    if (rafRef.current) return;
    const tick = (timeMs: number) => {
      rafRef.current = 0;
      if (draw(timeMs)) rafRef.current = requestAnimationFrame(tick);
    };
    rafRef.current = requestAnimationFrame(tick);
  }, [draw]);
  useEffect(() => () => cancelAnimationFrame(rafRef.current), []);

  // A frame already requested by the event that caused this render would only repeat it: drop it.
  const drawNow = useCallback(() => {
    cancelAnimationFrame(rafRef.current);
    rafRef.current = 0;
    if (draw(performance.now())) requestDraw();
  }, [draw, requestDraw]);
  return { requestDraw, drawNow };
}
