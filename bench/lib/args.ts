/**
 * Command-line options of `npm run bench`: `--smoke` and `--only <group>[,<group>]`.
 * Groups run in the order of `BENCH_GROUPS` whatever order `--only` names them in.
 */
export const BENCH_GROUPS = [
  'bff',
  'fleet',
  'bundle',
  'page',
  'budget',
  'verify',
  'webhooks',
  'timeline',
  'start',
] as const;
export type BenchGroup = (typeof BENCH_GROUPS)[number];

export interface BenchArgs {
  smoke: boolean;
  /** The groups to run; all of them without `--only`. */
  groups: ReadonlySet<BenchGroup>;
  /** Whether `--only` narrowed the run (figures of other groups are marked "not run (--only)"). */
  only: boolean;
}

const isGroup = (name: string): name is BenchGroup =>
  (BENCH_GROUPS as readonly string[]).includes(name);

/**
 * Parses `process.argv.slice(2)`. Accepts `--only a,b`, `--only=a,b` and repeated `--only`.
 * Throws on an unknown group or option so a typo cannot silently measure nothing.
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let smoke = false;
  const named: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--smoke') smoke = true;
    else if (arg === '--only') named.push(...(argv[++i] ?? '').split(','));
    else if (arg.startsWith('--only=')) named.push(...arg.slice('--only='.length).split(','));
    else throw new Error(`unknown option ${arg}; use --smoke and --only <group>[,<group>]`);
  }
  const groups = named.map((n) => n.trim()).filter((n) => n.length > 0);
  const unknown = groups.filter((g) => !isGroup(g));
  if (unknown.length > 0 || (named.length > 0 && groups.length === 0))
    throw new Error(
      `--only: unknown group ${unknown.join(', ') || '(none given)'}; groups: ${BENCH_GROUPS.join(', ')}`,
    );
  return {
    smoke,
    groups: new Set(groups.length > 0 ? groups.filter(isGroup) : BENCH_GROUPS),
    only: groups.length > 0,
  };
}
