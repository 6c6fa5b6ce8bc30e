import { copyFile, mkdir, readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import Papa from 'papaparse';
import { bindSite, expect, signIn, test } from './support/fixtures.ts';
import { chartSvg, expectNoOverlap, expectTextsInside, type Box } from './support/charts.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import { expectNoSeriousAxeViolations } from './support/axe.ts';
import { SCREENSHOTS_DIR, screenshotPath } from './support/screenshots.ts';

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
    const response = await page.request.post(`/api/devices/${DEVICE_ID}/commands`, {
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

test('one command over 7 days: unique power labels in words, a tick per day, a visible 9-minute window, no label cut off', async ({
  page,
}) => {
  await seed(page, ONE_CHARGE);
  await openHistory(page, 7 * DAY_MS);
  const svg = chartSvg(powerFigure(page));

  const yLabels = await svg.locator('.recharts-yAxis-tick-labels text').allTextContents();
  expect(yLabels.length).toBeGreaterThanOrEqual(3);
  expect(new Set(yLabels).size, `labels ${yLabels.join(', ')}`).toBe(yLabels.length);
  expect(yLabels).toContain('0 W');
  expect(yLabels).toContain('2 kW charge');

  // Midnights on the site's clock, one per day of the range (5 June 10:00 to 12 June 10:00).
  const xLabels = svg.locator('.recharts-xAxis-tick-labels text');
  await expect(xLabels).toHaveText([
    '6 Jun',
    '7 Jun',
    '8 Jun',
    '9 Jun',
    '10 Jun',
    '11 Jun',
    '12 Jun',
  ]);
  await expectNoOverlap(xLabels);
  await expectTextsInside(svg);
  await expect(powerFigure(page)).toContainText('always 2 kW charge');

  // The chart follows its container: a narrower window, a narrower chart, labels still apart.
  const plot = powerFigure(page).getByRole('img', { name: /^Power chart/ });
  const wideWidthPx = (await svg.boundingBox())?.width ?? 0;
  await page.setViewportSize({ width: 480, height: 800 });
  await expect.poll(async () => (await svg.boundingBox())?.width).toBeLessThan(wideWidthPx - 40);
  const drawnWidthPx = (await svg.boundingBox())?.width ?? 0;
  expect(Math.abs(drawnWidthPx - ((await plot.boundingBox())?.width ?? 0))).toBeLessThanOrEqual(1);
  await expectNoOverlap(xLabels);
  await expectTextsInside(svg);
  await page.setViewportSize({ width: 1280, height: 720 });

  // At a day's zoom 9 minutes are 3 px of a 500 px plot; the window is drawn wider.
  await openHistory(page, DAY_MS);
  const mark = svg.locator('.history-window-mark rect').first();
  expect((await mark.boundingBox())?.width).toBeGreaterThanOrEqual(6);
  await expectNoOverlap(svg.locator('.recharts-xAxis-tick-labels text'));
  await expectTextsInside(svg);
  await expectTextsInside(chartSvg(outcomesFigure(page)));
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
      windowMarks: await viewer.locator('.history-window-mark').count(),
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
    [powerFigure(page), 'power', 'windowMarks'],
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
      name === 'power' ? screenshotPath('history-exported-power-chart.png') : undefined,
    );
    expect(Math.abs(file.size.width - drawn.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(file.chartSize.width - drawn.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(file.chartSize.height - drawn.height)).toBeLessThanOrEqual(1);
    expect(file.size.height).toBeGreaterThan(drawn.height);
    expect(file.title).toBe(name === 'power' ? 'Commanded power and limits' : 'Outcomes per day');
    expect(file.desc).toContain('(Europe/Berlin)');
    for (const label of tickLabels) expect(file.texts).toContain(label);
    expect(file[marks]).toBeGreaterThanOrEqual(name === 'power' ? 3 : 1);
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
    if (name === 'power') {
      await mkdir(SCREENSHOTS_DIR, { recursive: true });
      await copyFile(png.path, screenshotPath('history-exported-power-chart.2x.png'));
    }
  }
});

test.describe('in a browser on New York time', () => {
  test.use({ timezoneId: 'America/New_York' });

  test('tooltip, ticks, table and CSV are on the site clock, 24-hour, zone named', async ({
    page,
  }) => {
    await seed(page, ONE_CHARGE);
    await openHistory(page, DAY_MS);
    const figure = powerFigure(page);
    const svg = chartSvg(figure);

    // The tooltip of the window, by keyboard: the plot is one focusable image.
    await figure.getByRole('img', { name: /^Power chart/ }).focus();
    await page.keyboard.press('ArrowRight');
    const tooltip = page.getByRole('tooltip');
    await expect(tooltip).toContainText('2036-06-12 09:30–09:39 (Europe/Berlin)');
    await expect(tooltip).toContainText('UTC 2036-06-12 07:30–07:39');
    await expect(tooltip).toContainText('Target battery power: 2 kW charge');
    await page.keyboard.press('Escape');
    await expect(tooltip).toBeHidden();

    // The date label sits on Berlin's midnight: 14 of the range's 24 hours (10:00 to 10:00)
    // from its start; New York's midnight would be at 20 of 24.
    const axis = (await svg
      .locator('.recharts-xAxis line.recharts-cartesian-axis-line')
      .boundingBox()) as Box;
    const midnight = (await svg
      .locator('.recharts-xAxis-tick-labels text', { hasText: '12 Jun' })
      .boundingBox()) as Box;
    expect(
      Math.abs(midnight.x + midnight.width / 2 - (axis.x + (axis.width * 14) / 24)),
    ).toBeLessThan(3);

    await expect(page.locator('table.history-table tbody tr').first()).toContainText(
      '2036-06-12 09:30–09:39',
    );
    const csv = await download(page, 'Export table as CSV');
    const rows = Papa.parse<Record<string, string>>((await readFile(csv.path, 'utf8')).trim(), {
      header: true,
    }).data;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      startTimeSite: '2036-06-12T09:30:00+02:00',
      endTimeSite: '2036-06-12T09:39:00+02:00',
      startTimeUtc: '2036-06-12T07:30:00.000Z',
      siteTimeZone: 'Europe/Berlin',
    });
  });

  test("the range fields show the site's 24-hour time with its offset, typed on the site clock", async ({
    page,
  }) => {
    await openHistory(page, DAY_MS);
    // What a field shows, without the bidirectional isolation marks around the time.
    const shown = (name: string) =>
      page
        .getByRole('group', { name, exact: true })
        .evaluate((group) => (group.textContent ?? '').replace(/[\u2066-\u2069]/g, ''));
    // 2036-06-11 10:00 to 2036-06-12 10:00 in Berlin (CEST), not New York's 04:00 AM.
    expect(await shown('From')).toBe('2036-06-11, 10:00 GMT+2');
    expect(await shown('To')).toBe('2036-06-12, 10:00 GMT+2');
    for (const name of ['From', 'To']) expect(await shown(name)).not.toMatch(/AM|PM/i);

    // By keyboard: the start's hour typed as 22 on Berlin's clock is 20:00 UTC in the URL.
    await page
      .getByRole('group', { name: 'From', exact: true })
      .getByRole('spinbutton', { name: /hour/i })
      .focus();
    await page.keyboard.type('22');
    await page.getByRole('button', { name: 'Show range' }).press('Enter');
    await expect(page).toHaveURL(/from=2036-06-11T20%3A00%3A00Z|from=2036-06-11T20:00:00Z/);
    await expect(page.locator('#history-count')).toContainText(/commands? between/);
  });
});

test('no serious axe violation with a tooltip shown, light and dark', async ({ page }) => {
  // Four accessibility checks of a page with two charts: over a minute on a loaded 2-core machine.
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await seed(page, THREE_COMMANDS);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await openHistory(page, DAY_MS);
    const mark = chartSvg(powerFigure(page)).locator('.history-window-mark rect').first();
    await mark.hover();
    await expect(page.getByRole('tooltip')).toContainText('Target battery power: 2 kW charge');
    if (colorScheme === 'light')
      await page.screenshot({ path: screenshotPath('history-charts.png'), fullPage: true });
    await expectNoSeriousAxeViolations(page);

    await page.mouse.move(0, 0);
    await expect(page.getByRole('tooltip')).toHaveCount(0);
    await outcomesFigure(page)
      .getByRole('img', { name: /^Outcomes chart/ })
      .focus();
    await page.keyboard.press('End');
    await expect(outcomesFigure(page).getByRole('tooltip')).toContainText(
      '2036-06-12 (Europe/Berlin): 3 commands',
    );
    await expectNoSeriousAxeViolations(page);
  }
});
