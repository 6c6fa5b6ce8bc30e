import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { bindSite, expect, signIn, test } from './support/fixtures.ts';
import { chartSvg, type Box } from './support/charts.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

// The history page's charts on the demo fixture, at fixed instants so every expected time can
// be written out: the sandbox clock is moved to T0 (forward only; each test resets it), the
// commands are sent through the BFF, and the clock moves on so they have completed. The page
// shows them through a custom range in its URL, so the browser's own clock plays no part.
const SITE_ID = 'PLANT-EU-001'; // Berlin Logistics Hub, Europe/Berlin (CEST, UTC+2, in June)
const DEVICE_ID = 'BAT-EU-001-A';
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** 09:00 in Berlin. */
const T0_MS = Date.parse('2036-06-12T07:00:00Z');
/** The end of every range shown: 10:00 in Berlin. */
const END_MS = T0_MS + HOUR_MS;

const wire = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Sends each command at T0 (offsets in minutes from T0), then lets them all complete. */
interface SeedCommand {
  fromMin: number;
  toMin: number;
  powerControl: Partial<Record<string, number>>;
}

async function seed(page: Page, commands: readonly SeedCommand[]) {
  await sandboxAdmin.setClock(new Date(T0_MS));
  for (const command of commands) {
    const response = await page.request.post(`/api/device/${DEVICE_ID}/commands`, {
      headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
      data: {
        powerControl: command.powerControl,
        startTime: wire(T0_MS + command.fromMin * MINUTE_MS),
        endTime: wire(T0_MS + command.toMin * MINUTE_MS),
      },
    });
    expect(response.status()).toBe(202);
  }
  await sandboxAdmin.setClock(new Date(END_MS));
}

/** The walk's case: one 9-minute charge at 2 kW, 09:30 to 09:39 in Berlin. */
const ONE_CHARGE: SeedCommand[] = [
  { fromMin: 30, toMin: 39, powerControl: { targetBatteryPowerW: -2000 } },
];
const THREE_COMMANDS: SeedCommand[] = [
  ...ONE_CHARGE,
  { fromMin: 40, toMin: 50, powerControl: { targetBatteryPowerW: 3000, siteExportLimitW: 4000 } },
  { fromMin: 50, toMin: 55, powerControl: { chargeCutoffSocPercent: 90, siteImportLimitW: 5000 } },
];

async function openHistory(page: Page, rangeMs: number) {
  await page.goto(
    `/sites/${SITE_ID}/devices/${DEVICE_ID}/history?range=custom&from=${wire(END_MS - rangeMs)}&to=${wire(END_MS)}`,
  );
  await expect(page.locator('#history-count')).toContainText(/commands? between/, {
    timeout: 15_000,
  });
}

const powerFigure = (page: Page) =>
  page.getByRole('figure', { name: 'Commanded power and limits' });
const outcomesFigure = (page: Page) => page.getByRole('figure', { name: 'Outcomes per day' });

test.beforeEach(async ({ page }) => {
  await signIn(page);
  await bindSite(page, SITE_ID);
});

// Draws the open SVG document onto a canvas and says how much of it is not near-white. A string,
// as it runs in the page (these tests are typed without the DOM library).
const INKED_SHARE = `(async () => {
  const text = new XMLSerializer().serializeToString(document.documentElement);
  const image = new Image();
  image.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
  await image.decode();
  const canvas = new OffscreenCanvas(image.naturalWidth, image.naturalHeight);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0;
  for (let i = 0; i < pixels.length; i += 4)
    if (Math.min(pixels[i], pixels[i + 1], pixels[i + 2]) < 200) inked += 1;
  return { width: canvas.width, height: canvas.height, inkedShare: inked / (canvas.width * canvas.height) };
})()`;

/**
 * Opens a saved SVG file on its own in a new tab (no page, no style sheet) and reads it: its size,
 * its chart's size, its texts and marks, and how much of it is drawn when rendered. With
 * `screenshot`, saves the rendered file there.
 */
async function openSvgFile(page: Page, filePath: string, screenshot?: string) {
  const viewer = await page.context().newPage();
  try {
    await viewer.goto(`file://${filePath}`);
    const root = viewer.locator(':root');
    const chart = viewer.locator(':root > svg');
    const size = async (element: Locator) => ({
      width: Number(await element.getAttribute('width')),
      height: Number(await element.getAttribute('height')),
    });
    const file = {
      size: await size(root),
      chartSize: await size(chart),
      title: await viewer.locator(':root > title').textContent(),
      desc: await viewer.locator(':root > desc').textContent(),
      texts: await viewer.locator('text').allTextContents(),
      // Each of the chart's texts carries its own font and colour, as the page computed them.
      textsWithoutStyle: await chart.locator('text:not([font-family][font-size][fill])').count(),
      lines: await viewer.locator('.recharts-line-curve').count(),
      bars: await viewer.locator('.recharts-bar-rectangle path').count(),
      rendered: (await viewer.evaluate(INKED_SHARE)) as {
        width: number;
        height: number;
        inkedShare: number;
      },
    };
    if (screenshot) {
      await viewer.setViewportSize(file.size);
      await viewer.screenshot({ path: screenshot });
    }
    return file;
  } finally {
    await viewer.close();
  }
}

/** Width and height of a PNG, from its IHDR chunk. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

/** Clicks `button` and keeps the file it downloads under its own name (a viewer goes by it). */
async function download(page: Page, button: string): Promise<{ path: string; name: string }> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  const name = file.suggestedFilename();
  const path = test.info().outputPath(name);
  await file.saveAs(path);
  return { path, name };
}

test('each chart saves as a standalone SVG at its drawn size and as a PNG at twice that', async ({
  page,
}) => {
  await seed(page, THREE_COMMANDS);
  await openHistory(page, DAY_MS);

  for (const [figure, name, marks] of [
    [powerFigure(page), 'power', 'lines'],
    [outcomesFigure(page), 'outcomes', 'bars'],
  ] as const) {
    const svg = chartSvg(figure);
    const drawn = (await svg.boundingBox()) as Box;
    const tickLabels = await svg.locator('.recharts-cartesian-axis-tick-value').allTextContents();

    const saved = await download(page, `Save ${name} chart as SVG`);
    expect(saved.name).toBe(`${DEVICE_ID}-history-2036-06-11-2036-06-12-${name}.svg`);
    const text = await readFile(saved.path, 'utf8');
    const file = await openSvgFile(
      page,
      saved.path,
      name === 'power' ? 'docs/screenshots/history-exported-power-chart.png' : undefined,
    );
    expect(Math.abs(file.size.width - drawn.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(file.chartSize.width - drawn.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(file.chartSize.height - drawn.height)).toBeLessThanOrEqual(1);
    expect(file.size.height).toBeGreaterThan(drawn.height);
    expect(file.title).toBe(name === 'power' ? 'Commanded power and limits' : 'Outcomes per day');
    expect(file.desc).toContain('(Europe/Berlin)');
    for (const label of tickLabels) expect(file.texts).toContain(label);
    expect(file[marks]).toBeGreaterThanOrEqual(1);
    expect(file.textsWithoutStyle).toBe(0);
    expect(text).not.toContain('var(');
    expect(text).not.toContain('currentColor');
    // It renders on its own: the whole file, with a fair share of it drawn on.
    expect(file.rendered).toMatchObject(file.size);
    expect(file.rendered.inkedShare).toBeGreaterThan(0.01);

    const png = await download(page, `Save ${name} chart as PNG`);
    expect(png.name).toBe(saved.name.replace(/\.svg$/, '.png'));
    const bytes = await readFile(png.path);
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(pngSize(bytes)).toEqual({ width: 2 * file.size.width, height: 2 * file.size.height });
  }
});
