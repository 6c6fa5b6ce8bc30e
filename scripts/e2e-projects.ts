import { readdirSync } from 'node:fs';
import path from 'node:path';

/** A browser test project as far as choosing its test stack goes: its name and its spec files. */
export interface E2eProject {
  name: string;
  /** Absolute paths of its spec files. */
  files: readonly string[];
}

/**
 * The spec files under `testDir` (absolute paths), by the first folder under it: `''` for the
 * files directly in it.
 */
export function specFilesByFolder(testDir: string): Map<string, string[]> {
  const byFolder = new Map<string, string[]>();
  for (const entry of readdirSync(testDir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.spec.ts')) continue;
    const parts = entry.split(path.sep);
    const folder = parts.length > 1 ? (parts[0] ?? '') : '';
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), path.join(testDir, entry)]);
  }
  return byFolder;
}

/** Playwright's reading of a project name given on the command line: `*` matches anything. */
const nameMatcher = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );

/** Playwright's reading of a file filter: `/re/flags` as written, else a regular expression. */
function fileMatcher(filter: string): RegExp {
  const withoutLine = filter.replace(/:\d+(:\d+)?$/, '');
  const literal = /^\/(.*)\/([gi]*)$/.exec(withoutLine);
  return literal ? new RegExp(literal[1] ?? '', literal[2]) : new RegExp(withoutLine, 'i');
}

/**
 * The projects a `playwright test` command line runs, so the config starts only the test stacks
 * those projects need: each stack takes a minute or more to start on a loaded 2-core machine,
 * and `--project=demo` waited for all four.
 *
 * Reads `--project <name...>` and `--project=<name>` (repeatable, `*` as a wildcard) and the
 * arguments that name spec files (`e2e/large/fleet.spec.ts`, `timeline.spec.ts:40`), which
 * Playwright reads as regular expressions over the files' paths. Other filters (`--grep`, a
 * folder name) narrow nothing here: a stack too many is slower, a stack too few fails the run.
 * Every project when the command is not `playwright test` (a worker process loads the config too,
 * and never starts the stacks) or names neither.
 */
export function projectsToRun(
  argv: readonly string[],
  projects: readonly E2eProject[],
): Set<string> {
  const all = new Set(projects.map((p) => p.name));
  const command = argv.findIndex((arg, i) => i >= 2 && arg === 'test');
  if (command < 0) return all;
  const names: string[] = [];
  const files: string[] = [];
  for (let i = command + 1; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg.startsWith('--project=')) names.push(arg.slice('--project='.length));
    else if (arg === '--project')
      while (argv[i + 1] !== undefined && !(argv[i + 1] ?? '').startsWith('-'))
        names.push(argv[++i] ?? '');
    else if (/\.spec\.ts(:\d+(:\d+)?)?$/.test(arg)) files.push(arg);
  }
  const byName =
    names.length === 0
      ? projects
      : projects.filter((p) => names.some((name) => nameMatcher(name).test(p.name)));
  const byFile =
    files.length === 0
      ? byName
      : byName.filter((p) => p.files.some((file) => files.some((f) => fileMatcher(f).test(file))));
  return new Set(byFile.map((p) => p.name));
}

/**
 * Each browser test project's spec folder under e2e/ (`''`: the files directly in it), the one
 * home of that mapping for playwright.config.ts and scripts/e2e-parallel.ts.
 */
export const PROJECT_FOLDERS = {
  demo: '',
  large: 'large',
  firefox: 'firefox',
  'company-sign-in': 'company-sign-in',
  'company-sign-in-glewlwyd': 'company-sign-in',
  prism: 'prism',
  budget: 'budget',
} as const;
export type ProjectName = keyof typeof PROJECT_FOLDERS;

/** One Playwright process of a parallel browser test run: its projects and spec files. */
export interface E2eShard {
  projects: ProjectName[];
  /** Absolute paths of the spec files it runs (every file of each of its projects but demo's). */
  files: string[];
  /**
   * Ports its stacks sit above the run's `E2E_PORT_OFFSET` (scripts/e2e-parallel.ts says why these
   * steps).
   */
  portStep: number;
}

/** A shard after the first, as planned: its projects, the demo specs it takes, its port step. */
interface LaterShard {
  projects: readonly ProjectName[];
  /** File names of e2e/ (the demo project's specs) it runs. */
  demoSpecs: readonly string[];
  portStep: number;
}

/**
 * The shards after the first: the second takes some of the demo project's specs on a demo stack
 * of its own; the third the projects on stacks of their own (company sign-in twice, Prism, the
 * budget stack), Firefox on its demo stack, and five demo specs that mostly wait on the servers
 * (the deliverable and token specs moved there when the first shard ran 713 s to the third's 524;
 * the webhook spec, which waits on deliveries to a receiver of its own, beside them).
 * Everything else, a new spec included, runs in the first shard, with the `large` project, so a
 * spec is never left out.
 *
 * The split evens the shards' wall time as measured on a full run: with the machine loaded by
 * other runs (a load of 20-37 on two cores), the shards took 1,196, 880 and 1,094 s, the third
 * spending half of it starting its servers, and journey.spec.ts then moved from the first shard to
 * the second. A third shard, not two, so one shard's waits (the outage test's lease, the budget
 * stack's restarts, a 50-device batch) leave the cores to the others: its demo stack costs about
 * 11 CPU seconds to start and 2 a minute idle, against some 1,100 for the whole run. Move a spec
 * between them when one shard ends much later than the others.
 *
 * Port steps: the third shard's many stacks take the second shard's old step of 50; the second,
 * a demo stack only, 25, whose two ports (18105, 18115 above the offset) no stack of any shard,
 * nor of another checkout a whole hundred away, uses.
 */
export const LATER_SHARDS = [
  {
    projects: [],
    demoSpecs: [
      'timeline.spec.ts',
      'journey.spec.ts',
      'history-charts.spec.ts',
      'seams.spec.ts',
      'operator-words.spec.ts',
      'site-unbind.spec.ts',
      'fleet-final.spec.ts',
      'batch-actions.spec.ts',
      'console-errors.spec.ts',
      'page-scroll.spec.ts',
      'live-updates.spec.ts',
      'overview.spec.ts',
    ],
    portStep: 25,
  },
  {
    projects: ['firefox', 'company-sign-in', 'company-sign-in-glewlwyd', 'prism', 'budget'],
    demoSpecs: [
      'outage.spec.ts',
      'batch.spec.ts',
      'deliverable.spec.ts',
      'api-tokens.spec.ts',
      'webhooks.spec.ts',
    ],
    portStep: 50,
  },
] as const satisfies readonly LaterShard[];

/**
 * Splits the browser tests into shards, each run by a Playwright process of its own with its own
 * stacks (scripts/e2e-parallel.ts): one per {@link LATER_SHARDS} entry with its projects and demo
 * specs, and the first with the rest. Not Playwright's `--shard`, which would start every
 * project's stacks in every process (the `large` stack alone seeds 20,000 commands) and splits by
 * test count, not by time.
 *
 * @param specsByFolder the spec files by folder, as {@link specFilesByFolder} gives them.
 * @returns the shards, the first with port step 0; every spec file of every project is in exactly
 *   one of them.
 */
export function planShards(specsByFolder: ReadonlyMap<string, readonly string[]>): E2eShard[] {
  const filesOf = (project: ProjectName) => specsByFolder.get(PROJECT_FOLDERS[project]) ?? [];
  const later: readonly LaterShard[] = LATER_SHARDS;
  const demoFiles = filesOf('demo');
  const takenDemo = new Set(later.flatMap((plan) => plan.demoSpecs));
  const takenProjects = new Set(later.flatMap((plan) => plan.projects));
  const shard = (projects: ProjectName[], demo: readonly string[], portStep: number): E2eShard => ({
    projects: demo.length > 0 ? ['demo', ...projects] : projects,
    files: [...new Set([...demo, ...projects.flatMap(filesOf)])],
    portStep,
  });
  return [
    shard(
      (Object.keys(PROJECT_FOLDERS) as ProjectName[]).filter(
        (name) => name !== 'demo' && !takenProjects.has(name),
      ),
      demoFiles.filter((file) => !takenDemo.has(path.basename(file))),
      0,
    ),
    ...later.map((plan) =>
      shard(
        [...plan.projects],
        demoFiles.filter((file) => plan.demoSpecs.includes(path.basename(file))),
        plan.portStep,
      ),
    ),
  ];
}
