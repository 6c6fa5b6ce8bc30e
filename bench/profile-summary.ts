/**
 * Summarises a V8 CPU profile (`.cpuprofile`, e.g. from `BENCH_BFF_CPU_PROF_DIR`, see
 * bench/README.md): top functions by self time, and self time by package or source folder, so
 * bench/EVIDENCE.md can name what limits a figure.
 * Usage: `npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25]`.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const ProfileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({
        functionName: z.string(),
        url: z.string(),
        lineNumber: z.number(),
      }),
      children: z.array(z.number()).optional(),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

/** Where a function lives: `node_modules/<package>`, `src/<a>/<b>`, `node:<module>` or the V8 label. */
function owner(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `(native ${functionName})`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const src = url.match(/\/(src\/[^/]+\/[^/]+)/);
  return src?.[1] ?? url.replace(/^file:\/\//, '');
}

const shortUrl = (url: string) =>
  url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|src|bench)\//, '$1/');

async function main(): Promise<void> {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  const top = Number(topArg ?? 25);
  if (!Number.isInteger(top) || top < 1)
    throw new Error(`top must be a positive integer: ${topArg}`);
  const profile = ProfileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const frameName = (frame: { functionName: string; url: string; lineNumber: number }) =>
    `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
  // Time spent below our own code (libraries, database, natives), charged to the nearest caller
  // in src/: which of our code paths cost the most, all in.
  const byOurCaller = new Map<string, number>();
  for (const [id, us] of selfUs) {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame?.url.includes('/src/')) {
        const name = frameName(frame);
        byOurCaller.set(name, (byOurCaller.get(name) ?? 0) + us);
        break;
      }
    }
  }
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const name = frameName(frame);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const where = owner(frame.url, frame.functionName);
    byOwner.set(where, (byOwner.get(where) ?? 0) + us);
  }
  const busyUs = totalUs - (byOwner.get('(idle)') ?? 0);
  const row = ([name, us]: [string, number]) =>
    `| ${(us / 1000).toFixed(0)} | ${((100 * us) / busyUs).toFixed(1)}% | \`${name}\` |`;
  const sorted = (m: Map<string, number>) =>
    [...m].filter(([name]) => !name.startsWith('(idle)')).sort((a, b) => b[1] - a[1]);
  console.log(
    `profile ${file}: ${(totalUs / 1e6).toFixed(1)} s sampled, ${(busyUs / 1e6).toFixed(1)} s not idle`,
  );
  console.log('\n| self ms | of busy | function |\n| ---: | ---: | --- |');
  for (const entry of sorted(byFunction).slice(0, top)) console.log(row(entry));
  console.log('\n| self ms | of busy | package or folder |\n| ---: | ---: | --- |');
  for (const entry of sorted(byOwner).slice(0, top)) console.log(row(entry));
  console.log('\n| ms at and below | of busy | nearest caller in src/ |\n| ---: | ---: | --- |');
  for (const entry of sorted(byOurCaller).slice(0, top)) console.log(row(entry));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
