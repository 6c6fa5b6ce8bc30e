/**
 * The overview's fleet picture with 10,000 devices: the production SPA served by the bench's BFF,
 * signed in, its `GET /api/fleet-picture` answered by the domain's `fleetPictureOf` over the
 * `fleet` fixture's 10,000 devices (src/sandbox/fixtures/fleet-fixture.ts) with a latest sample
 * each, their seeded behaviours and a fleet job over all of them; the reference is the same page
 * with the first 100 of those devices, in the same browser, interleaved.
 */
import type { Browser, BrowserContext } from '@playwright/test';
import {
  fleetPictureOf,
  type DeviceVerdicts,
  type FleetDevice,
  type FleetPicture,
  type FleetSite,
} from '#domain/fleet-picture.ts';
import type { Verdict } from '#domain/verdict.ts';
import { ATTENTION_FOR_MS, SILENT_AFTER_MS } from '#server/product-api/fleet-picture-routes.ts';
import { FLEET_FIXTURE } from '#sandbox/fixtures/fleet-fixture.ts';
import { seededRandom } from '#sandbox/fixtures/seeded-random.ts';
import type { Behaviour } from '#sandbox/model/behaviours.ts';
import { launchChromium } from '../lib/browser.ts';
import type { BenchOptions, Stack } from '../lib/context.ts';
import { SESSION_COOKIE } from '../lib/http.ts';
import { judged, reported, type BenchResult, type Figure } from '../lib/results.ts';
import { median } from '../lib/stats.ts';

export const OVERVIEW_PAGE_FIGURES = {
  render: { name: 'page.overview_fleet_10k_ms', unit: 'ms', budget: 1000 },
  ratio: { name: 'page.overview_fleet_10k_ratio_vs_100_devices', unit: 'x', budget: 1.5 },
  navigation: { name: 'page.overview_fleet_10k_navigation_ms', unit: 'ms', budget: null },
} satisfies Record<string, Figure>;

const LARGE_FLEET = 10_000;
const SMALL_FLEET = 100;
const MINUTE_MS = 60_000;
/** Discharge commanded of each device by the fleet job running now, W. */
const COMMANDED_W = 3000;

/** The verdict of a device's last command, by its seeded behaviour (src/sandbox/README.md). */
const LAST_VERDICT: Partial<Record<Behaviour, Verdict>> = {
  ignoresCommands: 'notFollowing',
  goesOffline: 'noData',
  nearCutoff: 'limitedBySoc',
  siteLimited: 'limitedBySiteLimit',
};

/**
 * The fleet picture the BFF would answer for the first `count` devices of the `fleet` fixture at
 * `nowMs`: each device's latest sample a minute old (none for those going offline, so silent),
 * following a 3 kW discharge of a fleet job over all of them or keeping to self-consumption as its
 * behaviour says, and the verdicts of the command before.
 */
export function fleetPictureOfFixture(count: number, nowMs: number): FleetPicture {
  const random = seededRandom(`overview-${count}`);
  const fleetSites = FLEET_FIXTURE.sites.filter((site) => site.siteId.startsWith('PLANT-EU-F'));
  const deviceSites = fleetSites
    .flatMap((site) => site.devices.map((device) => ({ site, device })))
    .slice(0, count);
  const withDevices = new Set(deviceSites.map((entry) => entry.site));
  const sites: FleetSite[] = fleetSites
    .filter((site) => withDevices.has(site))
    .map((site) => ({ siteId: site.siteId, siteName: site.name, timeZone: site.ianaZone }));
  const devices: FleetDevice[] = [];
  const verdicts: DeviceVerdicts[] = [];
  for (const { site, device } of deviceSites) {
    const behaviour = device.behaviour ?? 'follows';
    const socPercent = behaviour === 'nearCutoff' ? 12 : 20 + random() * 70;
    const followsW = behaviour === 'siteLimited' ? 1000 : COMMANDED_W - random() * 100;
    const batteryPowerW =
      behaviour === 'ignoresCommands'
        ? -random() * 1500
        : behaviour === 'nearCutoff'
          ? 0
          : followsW;
    const pvPowerW = random() * 4000;
    devices.push({
      deviceId: device.deviceId,
      siteId: site.siteId,
      capacityKwh: 20,
      ...(behaviour === 'goesOffline'
        ? {}
        : {
            latest: {
              atMs: nowMs - MINUTE_MS,
              batteryPowerW,
              socPercent,
              gridPowerW: 600 - pvPowerW - batteryPowerW,
              pvPowerW,
            },
          }),
    });
    const verdict = LAST_VERDICT[behaviour] ?? 'delivered';
    verdicts.push({
      deviceId: device.deviceId,
      siteId: site.siteId,
      verdicts: [
        { verdict, commandId: `${device.deviceId}-previous`, endMs: nowMs - 60 * MINUTE_MS },
      ],
    });
  }
  return fleetPictureOf({
    devices,
    sites,
    running: [
      {
        kind: 'fleetJob',
        id: 'bench-fleet-job',
        startMs: nowMs - 30 * MINUTE_MS,
        endMs: nowMs + 90 * MINUTE_MS,
        deviceIds: devices.map((device) => device.deviceId),
        commandedW: COMMANDED_W * devices.length,
      },
    ],
    verdicts,
    nowMs,
    silentAfterMs: SILENT_AFTER_MS,
    attentionForMs: ATTENTION_FOR_MS,
  });
}

/** The little of the DOM {@link pictureRendered} uses (the bench compiles without the DOM's types). */
interface PageGlobals {
  document: { querySelector(selector: string): unknown };
  performance: {
    now(): number;
    getEntriesByType(type: 'resource'): { name: string; responseEnd: number }[];
  };
}

/**
 * Whether the fleet picture is on screen whole: its figures, a row per site, the state of charge
 * chart (loaded lazily), what runs now and the attention list; then when, and when its answer
 * arrived. Runs in the page, as a function (the page's CSP refuses strings evaluated).
 */
function pictureRendered(): Visit | false {
  const { document, performance } = globalThis as unknown as PageGlobals;
  const rendered = [
    '.fleet-picture .fleet-figures',
    '.fleet-sites tbody tr',
    '.fleet-soc .recharts-surface',
    '.fleet-running li',
    '.fleet-attention li',
  ].every((selector) => document.querySelector(selector) !== null);
  if (!rendered) return false;
  const answer = performance
    .getEntriesByType('resource')
    .find((entry) => entry.name.includes('/api/fleet-picture'));
  return { renderedMs: performance.now(), answerMs: answer ? answer.responseEnd : null };
}

interface Visit {
  /** From navigation start to the whole picture on screen (the frame it is drawn in), ms. */
  renderedMs: number;
  /** From navigation start to the fleet picture's answer received, ms; null when not timed. */
  answerMs: number | null;
}

/** Opens `/overview` in a fresh page of `context` with the picture answered by `answer`. */
async function visit(context: BrowserContext, origin: string, answer: string): Promise<Visit> {
  const page = await context.newPage();
  try {
    await page.route(/\/api\/fleet-picture(\?|$)/, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: answer }),
    );
    await page.goto(`${origin}/overview`, { waitUntil: 'commit' });
    const handle = await page.waitForFunction(pictureRendered, undefined, {
      polling: 'raf',
      timeout: 30_000,
    });
    return (await handle.jsonValue()) as Visit;
  } finally {
    await page.close();
  }
}

/** From the answer's arrival to the picture drawn whole, ms. */
function afterAnswerMs(visit: Visit): number {
  if (visit.answerMs === null) throw new Error('the fleet picture answer has no resource timing');
  return visit.renderedMs - visit.answerMs;
}

/**
 * `page.overview_fleet_10k_ms`, from the answer's arrival to the picture drawn whole (median of 5
 * visits, 1 in a smoke run, after one unmeasured visit that fills the browser's cache as an
 * operator's second visit finds it), its ratio to the same page with 100 devices (visits
 * interleaved), and the time from navigation, reported: it is mostly the SPA's start and the
 * session's check, the same for any fleet, and swings with the machine's load.
 */
export async function measureOverviewPage(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const nowMs = Date.now();
  const large = JSON.stringify(fleetPictureOfFixture(LARGE_FLEET, nowMs));
  const small = JSON.stringify(fleetPictureOfFixture(SMALL_FLEET, nowMs));
  const runs = options.smoke ? 1 : 5;
  const browser: Browser = await launchChromium();
  const app: Visit[] = [];
  const reference: Visit[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const [name, value] = stack.session.cookie.split('=');
    await context.addCookies([
      { name: name ?? SESSION_COOKIE, value: value ?? '', url: stack.bffOrigin },
    ]);
    await visit(context, stack.bffOrigin, small);
    for (let run = 0; run < runs; run++) {
      app.push(await visit(context, stack.bffOrigin, large));
      reference.push(await visit(context, stack.bffOrigin, small));
    }
  } finally {
    await browser.close();
  }
  const rendered = median(app.map(afterAnswerMs));
  const referenceRendered = median(reference.map(afterAnswerMs));
  const what = `/api/fleet-picture answered by fleetPictureOf over the fleet fixture's ${LARGE_FLEET} devices (${Math.round(large.length / 1024)} KiB), production build, 1280x720`;
  return [
    judged(OVERVIEW_PAGE_FIGURES.render, rendered, {
      reason: `median of ${runs}: the answer received to the picture drawn whole (figures, sites, state of charge chart, running now, attention); ${what}`,
    }),
    judged(OVERVIEW_PAGE_FIGURES.ratio, rendered / referenceRendered, {
      reference: referenceRendered,
      ratio: rendered / referenceRendered,
      reason: `reference: the same page with the fixture's first ${SMALL_FLEET} devices (${Math.round(small.length / 1024)} KiB), visits interleaved`,
    }),
    reported(OVERVIEW_PAGE_FIGURES.navigation, median(app.map((v) => v.renderedMs)), {
      reference: median(reference.map((v) => v.renderedMs)),
      why: "the SPA's start and the session's check, the same for any fleet, swing with the machine's load",
      reason: `median of ${runs}: /overview navigation to the picture drawn whole; reference ${SMALL_FLEET} devices`,
    }),
  ];
}
