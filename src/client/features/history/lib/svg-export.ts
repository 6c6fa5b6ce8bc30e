const SVG_NS = 'http://www.w3.org/2000/svg';

export interface LegendEntry {
  label: string;
  color: string;
}

export interface SvgExportOptions {
  title: string;
  /** The chart's summary, kept as the file's `<desc>` so the export stays accessible. */
  description: string;
  legend: readonly LegendEntry[];
  background: string;
  text: string;
}

const LEGEND_ROW_PX = 18;
const TITLE_PX = 24;

/**
 * A standalone SVG file of a rendered chart: a copy of the chart's `<svg>` with a background,
 * its title and summary (`<title>`, `<desc>`), and the legend drawn as SVG (the chart library
 * renders its legend as HTML, which would not be in the file). Colours are literal in the chart,
 * so the file looks the same outside the page.
 */
export function chartSvgFile(svg: SVGSVGElement, options: SvgExportOptions): string {
  const width = Number(svg.getAttribute('width')) || svg.clientWidth || 800;
  const height = Number(svg.getAttribute('height')) || svg.clientHeight || 300;
  const legendHeight = options.legend.length * LEGEND_ROW_PX + 8;
  const totalHeight = TITLE_PX + height + legendHeight;
  const doc = svg.ownerDocument;
  const make = (name: string, attributes: Record<string, string | number>) => {
    const element = doc.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    return element;
  };

  const file = make('svg', {
    xmlns: SVG_NS,
    width,
    height: totalHeight,
    viewBox: `0 0 ${width} ${totalHeight}`,
    role: 'img',
    'font-family': 'system-ui, sans-serif',
    'font-size': 12,
  });
  const title = make('title', {});
  title.textContent = options.title;
  const desc = make('desc', {});
  desc.textContent = options.description;
  file.append(title, desc, make('rect', { width, height: totalHeight, fill: options.background }));

  const heading = make('text', { x: 8, y: 16, fill: options.text, 'font-weight': 600 });
  heading.textContent = options.title;
  file.append(heading);

  const chart = svg.cloneNode(true) as SVGSVGElement;
  chart.setAttribute('x', '0');
  chart.setAttribute('y', String(TITLE_PX));
  file.append(chart);

  options.legend.forEach((entry, index) => {
    const y = TITLE_PX + height + 4 + index * LEGEND_ROW_PX;
    const label = make('text', { x: 28, y: y + 11, fill: options.text });
    label.textContent = entry.label;
    file.append(make('rect', { x: 8, y: y + 2, width: 14, height: 10, fill: entry.color }), label);
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(file)}`;
}

/** Offers `content` as a file download named `fileName`. */
export function downloadFile(content: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
