import type { LegendEntry } from '#client/components/chart-frame.tsx';
import { textWidthPx } from '#client/lib/text-width.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** One legend entry: its words, colour and how the chart draws the series. */
export interface ChartFileOptions {
  title: string;
  /** A second heading line: the device, the range and the site's zone. */
  subtitle: string;
  /** The chart's summary, kept as the file's `<desc>` so the export stays accessible. */
  description: string;
  legend: readonly LegendEntry[];
  background: string;
  text: string;
}

/** The chart's own `<svg>` in `frame` (the one right under `.recharts-wrapper`: legend icons are `svg.recharts-surface` too), or `null`. */
export function chartSurfaceIn(frame: ParentNode): SVGSVGElement | null {
  const svg = frame.querySelector('.recharts-wrapper > svg.recharts-surface');
  return svg instanceof SVGSVGElement ? svg : null;
}

// Computed paint written on each element, as a file alone has no style sheet; as attributes, since
// the CSP (style-src 'self') refuses `style` attributes, even on a detached copy.
const PAINT = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-opacity',
  'stroke-width',
  'stroke-dasharray',
  'stroke-linecap',
  'stroke-linejoin',
  'opacity',
  'shape-rendering',
] as const;
const FONT = [
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'letter-spacing',
  'text-anchor',
  'dominant-baseline',
] as const;
const SHAPES = new Set(['path', 'rect', 'line', 'circle', 'ellipse', 'polyline', 'polygon']);
const TEXTS = new Set(['text', 'tspan', 'textPath']);

/** A copy of a drawn `<svg>` that looks the same outside the page: computed paint written on, hidden parts out, drawn size in px. */
export function standaloneCopy(svg: SVGSVGElement): {
  copy: SVGSVGElement;
  widthPx: number;
  heightPx: number;
} {
  const box = svg.getBoundingClientRect();
  const widthPx = Math.round(box.width) || Number(svg.getAttribute('width')) || 0;
  const heightPx = Math.round(box.height) || Number(svg.getAttribute('height')) || 0;
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const view = svg.ownerDocument.defaultView;
  const originals = [...svg.querySelectorAll('*')];
  const copies = [...copy.querySelectorAll('*')];
  const hidden: Element[] = [];
  originals.forEach((original, index) => {
    const target = copies[index];
    if (!target || !view) return;
    const style = view.getComputedStyle(original);
    if (style.display === 'none' || style.visibility === 'hidden') {
      hidden.push(target);
      return;
    }
    const tag = original.localName;
    const names = SHAPES.has(tag) ? PAINT : TEXTS.has(tag) ? [...PAINT, ...FONT] : [];
    for (const name of names) {
      const value = style.getPropertyValue(name);
      if (value !== '') target.setAttribute(name, value);
    }
  });
  for (const element of hidden) element.remove();
  // What only helps on screen (the outline of the target the tooltip shows) stays out.
  for (const element of copy.querySelectorAll('[data-screen-only]')) element.remove();
  // The chart library's empty <title>/<desc> would hide the file's own from some viewers.
  for (const element of copy.querySelectorAll(':scope > title, :scope > desc')) element.remove();
  copy.removeAttribute('style');
  copy.removeAttribute('class');
  copy.setAttribute('width', String(widthPx));
  copy.setAttribute('height', String(heightPx));
  return { copy, widthPx, heightPx };
}

const HEADING_LINE_PX = 18;
const HEADING_PX = 2 * HEADING_LINE_PX + 8;
const LEGEND_ROW_PX = 20;
const LEGEND_SWATCH_PX = 16;
const LEGEND_GAP_PX = 18;
const PADDING_PX = 8;
const FONT_SIZE_PX = 12;

/**
 * A standalone SVG of a drawn chart: heading, the chart at its drawn size ({@link standaloneCopy}),
 * its legend in SVG, `<title>` and `<desc>`. Returns the text and its size in px.
 */
export function chartSvgFile(
  svg: SVGSVGElement,
  options: ChartFileOptions,
): { text: string; widthPx: number; heightPx: number } {
  const { copy, widthPx, heightPx: chartHeightPx } = standaloneCopy(svg);
  const view = svg.ownerDocument.defaultView;
  const fontFamily = view?.getComputedStyle(svg).fontFamily || 'system-ui, sans-serif';
  const doc = svg.ownerDocument;
  const make = (name: string, attributes: Record<string, string | number>) => {
    const element = doc.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    return element;
  };

  // Legend entries flow left to right and wrap at the chart's width.
  const placed: { entry: LegendEntry; x: number; row: number }[] = [];
  let x = PADDING_PX;
  let row = 0;
  for (const entry of options.legend) {
    const entryWidthPx = LEGEND_SWATCH_PX + 6 + textWidthPx(entry.label, FONT_SIZE_PX);
    if (x > PADDING_PX && x + entryWidthPx > widthPx - PADDING_PX) {
      row += 1;
      x = PADDING_PX;
    }
    placed.push({ entry, x, row });
    x += entryWidthPx + LEGEND_GAP_PX;
  }
  const legendPx = placed.length === 0 ? 0 : (row + 1) * LEGEND_ROW_PX + PADDING_PX;
  const totalHeightPx = HEADING_PX + chartHeightPx + legendPx;

  const file = make('svg', {
    xmlns: SVG_NS,
    width: widthPx,
    height: totalHeightPx,
    viewBox: `0 0 ${widthPx} ${totalHeightPx}`,
    role: 'img',
    'font-family': fontFamily,
    'font-size': FONT_SIZE_PX,
  });
  const title = make('title', {});
  title.textContent = options.title;
  const desc = make('desc', {});
  desc.textContent = `${options.subtitle}. ${options.description}`;
  file.append(
    title,
    desc,
    make('rect', { width: widthPx, height: totalHeightPx, fill: options.background }),
  );

  const heading = make('text', {
    x: PADDING_PX,
    y: HEADING_LINE_PX - 2,
    fill: options.text,
    'font-weight': 600,
    'font-size': 14,
  });
  heading.textContent = options.title;
  const subheading = make('text', { x: PADDING_PX, y: 2 * HEADING_LINE_PX, fill: options.text });
  subheading.textContent = options.subtitle;
  file.append(heading, subheading);

  copy.setAttribute('x', '0');
  copy.setAttribute('y', String(HEADING_PX));
  file.append(copy);

  for (const { entry, x: entryX, row: entryRow } of placed) {
    const middleY = HEADING_PX + chartHeightPx + PADDING_PX / 2 + entryRow * LEGEND_ROW_PX + 10;
    const swatch =
      entry.mark === 'area'
        ? make('rect', {
            x: entryX,
            y: middleY - 6,
            width: LEGEND_SWATCH_PX,
            height: 12,
            fill: entry.color,
          })
        : make('line', {
            x1: entryX,
            x2: entryX + LEGEND_SWATCH_PX,
            y1: middleY,
            y2: middleY,
            stroke: entry.color,
            'stroke-width': 2.5,
            ...(entry.mark === 'dashed' ? { 'stroke-dasharray': '5 3' } : {}),
          });
    const label = make('text', {
      x: entryX + LEGEND_SWATCH_PX + 6,
      y: middleY + 4,
      fill: options.text,
    });
    label.textContent = entry.label;
    file.append(swatch, label);
  }
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(file)}`;
  return { text, widthPx, heightPx: totalHeightPx };
}

/** Pixels per CSS px of an exported PNG: the screen's ratio, at least 2. */
export const pngScale = () =>
  Math.max(2, typeof devicePixelRatio === 'number' ? devicePixelRatio : 1);

/** Rasterises an SVG file to a PNG `scale` times larger (no external resource: canvas untainted). Rejects when the browser cannot. */
export async function svgToPng(
  svgText: string,
  widthPx: number,
  heightPx: number,
  scale: number,
): Promise<Blob> {
  // A data: URL: the CSP allows images from 'self' and data: only.
  const image = new Image(widthPx, heightPx);
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(widthPx * scale);
  canvas.height = Math.round(heightPx * scale);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('this browser gave no 2D canvas');
  context.scale(scale, scale);
  context.drawImage(image, 0, 0, widthPx, heightPx);
  return new Promise<Blob>((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be encoded'))),
      'image/png',
    ),
  );
}
