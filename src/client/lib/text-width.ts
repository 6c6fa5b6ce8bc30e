let context: CanvasRenderingContext2D | null | undefined;

/** Width in px of `text` in the page's font at `fontPx`; 0.6 em a character without a canvas (tests). */
export function textWidthPx(text: string, fontPx: number): number {
  if (context === undefined)
    context =
      typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (!context) return text.length * fontPx * 0.6;
  context.font = `${fontPx}px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
  return context.measureText(text).width;
}
