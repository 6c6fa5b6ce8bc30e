import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { SlowestFirstSequencer } from '#test/support/slowest-first-sequencer.ts';

/** What every node test file gets. */
const nodeFiles = {
  environment: 'node',
  // Guards against a hang, not measures of speed (the bench measures speed): a stack starts
  // an embedded PostgreSQL, and on a loaded 2-core machine that took over 30 s.
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // `expect.poll` waits for a state the code reaches by itself (a fake's call arriving, a
  // row written); at the default 1 s a loaded clean-clone run gave up before it came.
  // `vi.waitFor` has no such setting: its calls pass the same 15 s themselves.
  expect: { poll: { timeout: 15_000 } },
} as const;

export default defineConfig({
  test: {
    // The slowest files of a project first (known durations, not only an earlier run's cache).
    sequence: { sequencer: SlowestFirstSequencer },
    projects: [
      {
        test: {
          // The spec's rules alone: pure functions of their arguments, no database, no mocks or
          // stubs, no module state but memoised time zone formats. One module graph for all their
          // files (`isolate: false`) spares each file loading zod, date-fns and the domain anew.
          name: 'domain',
          include: ['src/domain/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          // As the node project, whose group this is (one group, one number of workers).
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...nodeFiles,
          name: 'node',
          include: ['src/{infra,server,sandbox}/**/*.test.ts', 'test/**/*.test.ts'],
          // Three files at a time on CI's 2 cores (vitest's default there is one): most of a node
          // file's time is waiting (a stack's HTTP round trips, a queue's polling, a child
          // process), not computing; with two, the stage kept about one core busy. Every file has
          // its own databases, data directories and ephemeral ports, so files never share state.
          // No file runs alone: the limits of the fault and slow-wire suites are reached only by
          // the faults they inject (an upstream timeout of seconds beside a latency beyond it).
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'client',
          include: ['src/client/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          // Each test file still gets a fresh context and modules, but the worker keeps its
          // happy-dom and the loaded packages: the default pool built happy-dom once per file
          // (64 times, about 30 s of a 100-120 s run on 2 cores); this run takes 35-37 s. Not
          // `isolate: false`, which would share module state (query clients, stubs) across files.
          pool: 'vmThreads',
          // One file at a time, before the node files: the client's time is the CPU's (rendering,
          // typing, transforming lazily loaded pages in the one Vite server), not waiting, so a
          // second file only slowed both, and a lazy page then took longer than a query waits.
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
          setupFiles: ['src/client/testing/setup.ts'],
          // Vitest empties CSS imports; the design tokens are read as text by the tests of code
          // that reads them (testing/design-tokens.ts).
          css: { include: [/tokens\.css/] },
          // Node 22 and later re-read date-fns' 199 KB package.json `exports` for each of the ~250
          // files its root entry loads (1.6 s on Node 24 against 0.14 s on Node 20; see
          // docs/decisions/002-node-24-runtime.md). Pre-bundled into one file it loads at once, so
          // a test that waits for a lazily loaded page does not wait for date-fns.
          deps: { optimizer: { client: { enabled: true, include: ['date-fns'] } } },
          // Form tests type with user-event; a loaded 2-core CI machine can take several seconds.
          testTimeout: 15_000,
        },
      },
    ],
  },
});
