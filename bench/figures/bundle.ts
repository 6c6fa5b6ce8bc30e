/**
 * Bundle figures: the JS the sign-in route loads (gzip), and the chunk holding the
 * history charts (recharts), which must stay out of it.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from '@playwright/test';
import { judged, notMeasured, type BenchResult, type Figure } from '../lib/results.ts';

export const BUNDLE_FIGURES = {
  initial: { name: 'bundle.initial_js_gzip_kib', unit: 'KiB', budget: 170 },
  history: { name: 'bundle.history_chunk_gzip_kib', unit: 'KiB', budget: 150 },
} satisfies Record<string, Figure>;

const gzipKib = (bytes: Uint8Array): number => gzipSync(bytes).byteLength / 1024;

/** Class names recharts renders; present in any chunk that bundles it. */
const RECHARTS_MARKER = 'recharts-wrapper';

/** Gzip size (zlib default level, what a server sends) of every script a page fetched, by path. */
async function scriptsLoaded(browser: Browser, url: string): Promise<Map<string, number>> {
  const page = await browser.newPage();
  const scripts = new Map<string, number>();
  const reads: Promise<unknown>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    reads.push(
      response
        .body()
        .then((body) => scripts.set(new URL(response.url()).pathname, gzipKib(body)))
        .catch(() => undefined),
    );
  });
  try {
    const response = await page.goto(url, { waitUntil: 'networkidle' });
    if (!response?.ok()) throw new Error(`GET ${url}: HTTP ${response?.status()}`);
    await Promise.all(reads);
  } finally {
    await page.close();
  }
  return scripts;
}

const totalKib = (sizes: Map<string, number>) => [...sizes.values()].reduce((a, b) => a + b, 0);

/**
 * Loads `/sign-in` in Chromium and sums the gzip size of every script it fetched, static imports
 * and lazy route chunks alike; the reference is the React-only page's scripts, same way.
 */
export async function measureBundle(
  browser: Browser,
  signInUrl: string,
  referenceUrl: string,
  spaDir: string,
): Promise<BenchResult[]> {
  const scripts = await scriptsLoaded(browser, signInUrl);
  const initialKib = totalKib(scripts);
  const referenceKib = totalKib(await scriptsLoaded(browser, referenceUrl));

  const assets = path.join(spaDir, 'assets');
  const files = (await readdir(assets)).filter((f) => f.endsWith('.js'));
  const charts: { file: string; kib: number }[] = [];
  for (const file of files) {
    const content = await readFile(path.join(assets, file));
    if (content.includes(RECHARTS_MARKER)) charts.push({ file, kib: gzipKib(content) });
  }
  const initial = judged(BUNDLE_FIGURES.initial, initialKib, {
    reference: referenceKib,
    ratio: initialKib / referenceKib,
    reason: `reference: React 19 + react-dom page; ${scripts.size} scripts loaded by /sign-in: ${[...scripts.keys()].map((p) => path.basename(p)).join(', ')}`,
  });
  if (charts.length === 0)
    return [
      initial,
      notMeasured(BUNDLE_FIGURES.history, 'history charts (recharts) not built yet'),
    ];
  const chartsOnSignIn = charts.filter((c) => scripts.has(`/assets/${c.file}`));
  const history = judged(
    BUNDLE_FIGURES.history,
    charts.reduce((a, c) => a + c.kib, 0),
    {
      reason:
        chartsOnSignIn.length > 0
          ? `recharts is loaded by the sign-in route (${chartsOnSignIn.map((c) => c.file).join(', ')})`
          : `lazy chunk(s) ${charts.map((c) => c.file).join(', ')}, not loaded by /sign-in; budget is ours (the architecture gives none)`,
    },
  );
  if (chartsOnSignIn.length > 0) history.ok = false;
  return [initial, history];
}
