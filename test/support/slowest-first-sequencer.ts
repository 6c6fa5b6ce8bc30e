/**
 * Runs the slowest test files first, so the two workers of the `node` project end together
 * instead of one starting a two-minute file when the other has nothing left (vitest.config.ts).
 * Vitest's own order puts the longest first only by the durations of an earlier run on this
 * machine, which a clean clone (CI) does not have; it then falls back to file size, which put the
 * longest file (fleet jobs) behind files a fifth as long. The known durations below (ms, of a
 * clean-clone run on PGlite and PostgreSQL) order the slow files; every other file keeps vitest's
 * order after them. Refresh them when a file's time changes a lot (`npx vitest run --project node
 * --reporter=verbose` prints each file's).
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Durations of the slowest files, ms, by path from the repository root. */
export const KNOWN_DURATIONS_MS: Readonly<Record<string, number>> = {
  'test/integration/fleet-jobs.test.ts': 130_000,
  // The fault and slow-wire suites: their CI times alone (73 s, 49 s) scaled by what shorter waits
  // saved them on a loaded 2-core machine (a third of each), plus some for a file beside them.
  'test/integration/faults.test.ts': 60_000,
  'test/integration/fleet-crash.test.ts': 54_000,
  'test/integration/slow-wire.test.ts': 36_000,
  'test/integration/crash.test.ts': 18_000,
  'test/integration/batch-reconcile.test.ts': 17_500,
  'src/server/__tests__/oidc-roles.test.ts': 16_000,
  'test/integration/fleet-final.test.ts': 14_000,
  'src/server/__tests__/write-path.test.ts': 13_500,
  'src/server/budget/__tests__/change-queue-crash.test.ts': 12_500,
  'src/server/__tests__/ledger.test.ts': 8_000,
  'test/integration/queued-lost-answer.test.ts': 8_000,
  'test/integration/data-upgrade.test.ts': 8_000,
  'src/server/__tests__/ledger-undo.test.ts': 8_000,
  'src/server/__tests__/ledger-migration.test.ts': 8_000,
  'src/server/read-model/__tests__/read-model.test.ts': 8_000,
  'test/contract/errors.test.ts': 8_000,
};

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const known = (spec: TestSpecification) =>
      KNOWN_DURATIONS_MS[
        path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/')
      ] ?? 0;
    // Array.prototype.sort is stable: within a project (and its group), the known slow files move
    // to the front, longest first, and the rest keep the base order.
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => {
        const group =
          a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder;
        if (group !== 0 || a.spec.project.name !== b.spec.project.name) return a.index - b.index;
        return known(b.spec) - known(a.spec) || a.index - b.index;
      })
      .map(({ spec }) => spec);
  }
}
