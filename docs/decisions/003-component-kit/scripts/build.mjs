// Builds the probe page once per kit (all parts), once per kit and part, and once per kit with no
// part (the kit's shell: providers and base CSS), then reports gzip sizes from Vite's manifest:
// "initial" is what index.html loads (the sign-in route), "lazy" what the signed-in page adds.
// Usage: node scripts/build.mjs [kit ...]   (kits: native rac rac-en radix mantine mantine-tuned;
// rac-en is the RAC page built with @react-aria/optimize-locales-plugin keeping English strings
// only; mantine-tuned is the Mantine page configured for the CSP and axe, page-tuned.jsx)
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import optimizeLocales from '@react-aria/optimize-locales-plugin';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const KITS = ['native', 'rac', 'rac-en', 'radix', 'mantine', 'mantine-tuned'];
export const PARTS = ['datefield', 'dialog', 'drawer', 'tooltip', 'toast', 'menu', 'combobox'];

function virtualModules(variant, parts) {
  const kit = variant.replace(/-(en|tuned)$/, '');
  const page = variant.endsWith('-tuned') ? 'page-tuned.jsx' : 'page.jsx';
  const ids = { 'virtual:kit-page': '\0kit-page', 'virtual:parts': '\0parts' };
  return {
    name: 'kit-probe-virtual',
    resolveId: (id) => ids[id],
    load(id) {
      if (id === '\0kit-page') return `export { default } from '/src/kits/${kit}/${page}';`;
      if (id !== '\0parts') return null;
      const imports = parts.map((p, i) => `import P${i} from '/src/kits/${kit}/parts/${p}.jsx';`);
      const list = parts.map((p, i) => `['${p}', P${i}]`).join(', ');
      return `${imports.join('\n')}\nexport default [${list}];`;
    },
  };
}

async function buildOne(kit, variant, parts) {
  const outDir = join(root, 'dist', kit, variant);
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    plugins: [
      kit.endsWith('-en') && optimizeLocales.vite({ locales: ['en-US'] }),
      react(),
      virtualModules(kit, parts),
    ],
    build: { outDir, emptyOutDir: true, manifest: true, sourcemap: false },
  });
  return sizes(outDir);
}

// Parts a kit has beyond the common seven (bytes only, e.g. RAC's DateField without a calendar).
function extraParts(kit) {
  const dir = join(root, 'src', 'kits', kit.replace(/-(en|tuned)$/, ''), 'parts');
  return readdirSync(dir)
    .map((f) => f.replace(/\.jsx$/, ''))
    .filter((p) => !PARTS.includes(p));
}

const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

function sizes(outDir) {
  const manifest = JSON.parse(readFileSync(join(outDir, '.vite', 'manifest.json'), 'utf8'));
  const walk = (keys, seen, follow) => {
    for (const key of keys) {
      if (seen.has(key)) continue;
      seen.add(key);
      const chunk = manifest[key];
      walk(chunk.imports ?? [], seen, follow);
      if (follow) walk(chunk.dynamicImports ?? [], seen, follow);
    }
    return seen;
  };
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
  const initial = walk([entry], new Set(), false);
  const all = walk([entry], new Set(), true);
  const lazy = [...all].filter((k) => !initial.has(k));
  const sum = (keys, kind) => {
    let raw = 0;
    let gzip = 0;
    const files = new Set();
    for (const k of keys) {
      const c = manifest[k];
      for (const f of kind === 'js' ? [c.file] : (c.css ?? [])) {
        if (files.has(f)) continue;
        files.add(f);
        raw += readFileSync(join(outDir, f)).length;
        gzip += gz(join(outDir, f));
      }
    }
    return { raw, gzip, files: [...files] };
  };
  return {
    initialJs: sum(initial, 'js'),
    initialCss: sum(initial, 'css'),
    lazyJs: sum(lazy, 'js'),
    lazyCss: sum(lazy, 'css'),
  };
}

const kits = process.argv.slice(2).length ? process.argv.slice(2) : KITS;
const results = {};
for (const kit of kits) {
  results[kit] = {
    all: await buildOne(kit, 'all', PARTS),
    shell: await buildOne(kit, 'shell', []),
  };
  for (const part of [...PARTS, ...extraParts(kit)]) {
    results[kit][part] = await buildOne(kit, part, [part]);
  }
  console.log(`built ${kit}`);
}

mkdirSync(join(root, 'dist', 'results'), { recursive: true });
const file = join(root, 'dist', 'results', 'bytes.json');
let previous = {};
try {
  previous = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  // first run
}
const merged = { ...previous, ...results };
writeFileSync(file, JSON.stringify(merged, null, 2) + '\n');

// Table: KiB gzip (level 9), the kit's figure minus the native baseline's for the same variant.
const kib = (n) => (n / 1024).toFixed(1);
const base = merged.native;
const rows = [];
for (const kit of Object.keys(merged)) {
  for (const variant of Object.keys(merged[kit])) {
    const r = merged[kit][variant];
    const b = base?.[variant] ?? base?.[variant.split('-')[0]];
    const d = (k) => (b ? kib(r[k].gzip - b[k].gzip) : '?');
    rows.push(
      `${kit.padEnd(8)} ${variant.padEnd(10)} initial JS ${kib(r.initialJs.gzip).padStart(6)}` +
        ` | lazy JS ${kib(r.lazyJs.gzip).padStart(6)} (+${d('lazyJs')})` +
        ` | lazy CSS ${kib(r.lazyCss.gzip).padStart(5)} (+${d('lazyCss')})`,
    );
  }
}
console.log(rows.join('\n'));
