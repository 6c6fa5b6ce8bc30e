/** Size of every text drawn on the timeline's canvas, px (CSS). */
export const FONT_SIZE_PX = 12;

/** Text widths by font, then text: labels repeat frame after frame, measuring them need not. */
const textWidths = new Map<string, Map<string, number>>();

/** Measures text in the context's current font (set it before asking), remembered per font. */
export function measurer(ctx: CanvasRenderingContext2D): (text: string) => number {
  const font = ctx.font;
  let widths = textWidths.get(font);
  if (!widths || widths.size > 4096) textWidths.set(font, (widths = new Map()));
  const known = widths;
  return (text) => {
    let width = known.get(text);
    if (width === undefined) {
      width = ctx.measureText(text).width;
      known.set(text, width);
    }
    return width;
  };
}

/** `text`, or the longest start of it with an ellipsis that fits `widthPx`; empty when none. */
export function fitText(text: string, widthPx: number, measure: (text: string) => number): string {
  if (measure(text) <= widthPx) return text;
  let fits = text.length - 1;
  while (fits > 1 && measure(`${text.slice(0, fits)}…`) > widthPx) fits--;
  return fits > 1 ? `${text.slice(0, fits)}…` : '';
}
