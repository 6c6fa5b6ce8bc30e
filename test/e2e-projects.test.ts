import { describe, expect, it } from 'vitest';
import {
  PROJECT_FOLDERS,
  planShards,
  projectsToRun,
  LATER_SHARDS,
  type E2eProject,
} from '../scripts/e2e-projects.ts';

const PROJECTS: E2eProject[] = [
  { name: 'demo', files: ['/repo/e2e/journey.spec.ts', '/repo/e2e/timeline.spec.ts'] },
  { name: 'large', files: ['/repo/e2e/large/fleet.spec.ts'] },
  { name: 'firefox', files: ['/repo/e2e/firefox/journey.spec.ts'] },
  { name: 'company-sign-in', files: ['/repo/e2e/company-sign-in/roles.spec.ts'] },
];

const run = (...args: string[]) => [
  ...projectsToRun(['/usr/bin/node', '/repo/node_modules/.bin/playwright', ...args], PROJECTS),
];

describe('the browser test projects a command line runs', () => {
  it('are all of them without a project or a spec file named, and in a worker process', () => {
    expect(run('test')).toEqual(['demo', 'large', 'firefox', 'company-sign-in']);
    expect(run('test', '--grep', 'timeline', '--workers=1')).toHaveLength(4);
    expect(projectsToRun(['/usr/bin/node', '/repo/worker.js'], PROJECTS).size).toBe(4);
  });

  it('are the projects named, in either spelling, repeated or with a wildcard', () => {
    expect(run('test', '--project=demo')).toEqual(['demo']);
    expect(run('test', '--project', 'large', 'firefox', '--reporter=line')).toEqual([
      'large',
      'firefox',
    ]);
    expect(run('test', '--project=demo', '--project=company-sign-in')).toEqual([
      'demo',
      'company-sign-in',
    ]);
    expect(run('test', '--project=COMPANY*')).toEqual(['company-sign-in']);
  });

  it('are narrowed to those holding a spec file named (with a line, too)', () => {
    expect(run('test', 'e2e/large/fleet.spec.ts')).toEqual(['large']);
    expect(run('test', 'e2e/timeline.spec.ts:40', '--project=demo')).toEqual(['demo']);
    // Playwright reads the name as a pattern over the paths: journey.spec.ts is in two projects.
    expect(run('test', 'journey.spec.ts')).toEqual(['demo', 'firefox']);
    expect(run('test', 'e2e/large/fleet.spec.ts', '--project=demo')).toEqual([]);
  });
});

describe('the shards of a parallel browser test run', () => {
  const specs = new Map([
    [
      '',
      [
        '/repo/e2e/screenshots.spec.ts',
        '/repo/e2e/timeline.spec.ts',
        '/repo/e2e/outage.spec.ts',
        '/repo/e2e/new.spec.ts',
      ],
    ],
    ['large', ['/repo/e2e/large/fleet.spec.ts']],
    ['firefox', ['/repo/e2e/firefox/journey.spec.ts']],
    ['company-sign-in', ['/repo/e2e/company-sign-in/roles.spec.ts']],
    ['prism', ['/repo/e2e/prism/vendor-contract.spec.ts']],
    ['budget', ['/repo/e2e/budget/queued-cancel.spec.ts']],
  ]);
  const shards = planShards(specs);
  /** The (project, file) pairs a shard runs: Playwright runs each of its projects' files named. */
  const runs = (shard: (typeof shards)[number]) =>
    shard.projects.flatMap((project) =>
      (specs.get(PROJECT_FOLDERS[project]) ?? [])
        .filter((file) => shard.files.includes(file))
        .map((file) => `${project} ${file}`),
    );

  it('run every spec of every project once between them', () => {
    const all = Object.entries(PROJECT_FOLDERS).flatMap(([project, folder]) =>
      (specs.get(folder) ?? []).map((file) => `${project} ${file}`),
    );
    const planned = shards.flatMap(runs);
    expect(planned.toSorted()).toEqual(all.toSorted());
    expect(new Set(planned).size).toBe(planned.length);
  });

  it('give each later shard the projects and demo specs named for it, a new spec to the first', () => {
    expect(shards).toHaveLength(3);
    expect(shards[1]?.projects).toEqual(['demo']);
    expect(shards[1]?.files).toEqual(['/repo/e2e/timeline.spec.ts']);
    expect(shards[2]?.projects).toEqual(['demo', ...LATER_SHARDS[1].projects]);
    expect(shards[2]?.files).toContain('/repo/e2e/outage.spec.ts');
    expect(shards[0]?.projects).toEqual(['demo', 'large']);
    expect(shards[0]?.files).toEqual(
      expect.arrayContaining(['/repo/e2e/screenshots.spec.ts', '/repo/e2e/new.spec.ts']),
    );
    expect(shards[0]?.files).not.toContain('/repo/e2e/timeline.spec.ts');
    expect(shards[0]?.files).not.toContain('/repo/e2e/outage.spec.ts');
  });

  it('put each shard on ports of its own, the first on the offset given', () => {
    expect(shards.map((shard) => shard.portStep)).toEqual([0, 25, 50]);
  });
});
