/**
 * Page-load figures: Lighthouse 13, desktop preset, performance only, on the
 * sign-in page served gzip by the BFF, interleaved with a React-only page built in the same run.
 */
import * as chromeLauncher from 'chrome-launcher';
import { ConstantBackoff, handleWhen, retry } from 'cockatiel';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { request } from 'undici';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.ts';
import type { BenchOptions } from '../lib/context.ts';
import { judged, type BenchResult, type Figure } from '../lib/results.ts';
import { median } from '../lib/stats.ts';

export const PAGE_FIGURES = {
  lcp: { name: 'page.lcp_ms', unit: 'ms', budget: 1200 },
  tbt: { name: 'page.tbt_ms', unit: 'ms', budget: 150 },
  cls: { name: 'page.cls', unit: 'score', budget: 0.02 },
  lcpRatio: { name: 'page.lcp_ratio_vs_react_only', unit: 'x', budget: 1.6 },
} satisfies Record<string, Figure>;

/** A Lighthouse run that failed to record the page load (e.g. NO_NAVSTART), not a slow page. */
class LighthouseRuntimeError extends Error {}

/**
 * Lighthouse now and then fails to record a trace on a loaded machine (`NO_NAVSTART`); such a run
 * measured nothing, so it is run again, at most twice more. Other errors fail the figure at once.
 */
const recordingRetry = retry(
  handleWhen((error) => error instanceof LighthouseRuntimeError),
  { maxAttempts: 2, backoff: new ConstantBackoff(1_000) },
);

interface Sample {
  lcpMs: number;
  tbtMs: number;
  cls: number;
}

async function audit(url: string, port: number): Promise<Sample> {
  const result = await lighthouse(
    url,
    { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
    desktopConfig,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { audits, runtimeError } = result.lhr;
  if (runtimeError)
    throw new LighthouseRuntimeError(
      `Lighthouse on ${url}: ${runtimeError.code} ${runtimeError.message}`,
    );
  const value = (id: string) => {
    const numeric = audits[id]?.numericValue;
    if (numeric === undefined) throw new Error(`Lighthouse on ${url}: no ${id}`);
    return numeric;
  };
  return {
    lcpMs: value('largest-contentful-paint'),
    tbtMs: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
  };
}

/**
 * Whether the BFF sends the page's first script gzip-compressed, for the note. The page is asked
 * for as a browser does (`accept: text/html`): the BFF answers other GETs of unknown paths 404.
 */
async function servedGzip(pageUrl: string): Promise<boolean> {
  const page = await request(pageUrl, { headers: { accept: 'text/html' } });
  const html = await page.body.text();
  if (page.statusCode !== 200) throw new Error(`GET ${pageUrl}: HTTP ${page.statusCode}`);
  const src = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
  if (!src) return false;
  const response = await request(new URL(src, pageUrl), { headers: { 'accept-encoding': 'gzip' } });
  await response.body.dump();
  return String(response.headers['content-encoding'] ?? '').includes('gzip');
}

export async function measurePage(
  signInUrl: string,
  referenceUrl: string,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const chrome = await chromeLauncher.launch({
    chromePath: findChromium(),
    chromeFlags: ['--headless=new', ...CHROMIUM_ARGS],
  });
  const runs = options.smoke ? 1 : 5;
  const app: Sample[] = [];
  const reference: Sample[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      app.push(await recordingRetry.execute(() => audit(signInUrl, chrome.port)));
      reference.push(await recordingRetry.execute(() => audit(referenceUrl, chrome.port)));
    }
  } finally {
    chrome.kill();
  }
  const gzip = await servedGzip(signInUrl);
  const lcp = median(app.map((s) => s.lcpMs));
  const referenceLcp = median(reference.map((s) => s.lcpMs));
  const note = `median of ${runs} Lighthouse runs, desktop preset${gzip ? ', served gzip' : ', NOT served gzip by the BFF'}`;
  return [
    judged(PAGE_FIGURES.lcp, lcp, { reason: note }),
    judged(PAGE_FIGURES.tbt, median(app.map((s) => s.tbtMs)), { reason: note }),
    judged(PAGE_FIGURES.cls, median(app.map((s) => s.cls)), { reason: note }),
    judged(PAGE_FIGURES.lcpRatio, lcp / referenceLcp, {
      reference: referenceLcp,
      ratio: lcp / referenceLcp,
      reason:
        'reference: React 19 + react-dom page (bench/react-only) built and served gzip in the same run',
    }),
  ];
}
