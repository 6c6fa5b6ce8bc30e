/** One line of `bench/results.json`: a figure, its budget and, where any, its reference. */
export interface BenchResult {
  name: string;
  value: number | null;
  unit: string;
  /** null for a figure that is reported but not judged (its reason says why). */
  budget: number | null;
  reference?: number;
  ratio?: number;
  /**
   * true or false against the budget; null where the feature measured does not exist yet, the
   * group was not run or failed (the reason says which), or the figure has no budget.
   */
  ok: boolean | null;
  /** Why `ok` is null, or what the figure measured against (endpoint, caveat, limiting factor). */
  reason?: string;
}

/** What a figure is compared with: most budgets are ceilings, throughput ratios are floors. */
export type BudgetKind = 'max' | 'min';

/** A figure with a budget: judged, so a miss fails the run. */
export interface JudgedFigure {
  name: string;
  unit: string;
  budget: number;
  kind?: BudgetKind;
}

/**
 * A figure written to `results.json` for the record but never judged, so it cannot fail the run:
 * where a budget was moved to a ratio because the absolute value swings with the machine's load.
 */
export interface ReportedFigure {
  name: string;
  unit: string;
  budget: null;
  kind?: undefined;
}

export type Figure = JudgedFigure | ReportedFigure;

const round = (value: number): number =>
  Math.abs(value) >= 100 ? Math.round(value * 10) / 10 : Math.round(value * 1000) / 1000;

/** A measured figure judged against its budget (inclusive). */
export function judged(
  figure: JudgedFigure,
  value: number,
  extra: { reference?: number; ratio?: number; reason?: string } = {},
): BenchResult {
  const ok = figure.kind === 'min' ? value >= figure.budget : value <= figure.budget;
  return {
    name: figure.name,
    value: round(value),
    unit: figure.unit,
    budget: figure.budget,
    ...(extra.reference === undefined ? {} : { reference: round(extra.reference) }),
    ...(extra.ratio === undefined ? {} : { ratio: round(extra.ratio) }),
    ok,
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
  };
}

/**
 * A measured figure without a budget: `budget` and `ok` are null, and the reason starts with
 * "reported, not judged" and says why.
 */
export function reported(
  figure: ReportedFigure,
  value: number,
  extra: { reference?: number; why: string; reason?: string },
): BenchResult {
  return {
    name: figure.name,
    value: round(value),
    unit: figure.unit,
    budget: null,
    ...(extra.reference === undefined ? {} : { reference: round(extra.reference) }),
    ok: null,
    reason: `reported, not judged (${extra.why})${extra.reason ? `; ${extra.reason}` : ''}`,
  };
}

/**
 * A figure not measured in this run: its feature does not exist yet, its group was not run or
 * failed; `ok: null` with the reason.
 */
export function notMeasured(figure: Figure, reason: string): BenchResult {
  return {
    name: figure.name,
    value: null,
    unit: figure.unit,
    budget: figure.budget,
    ok: null,
    reason,
  };
}

/** The results as a fixed-width table, one figure per line. */
export function formatTable(
  results: readonly BenchResult[],
  kinds: ReadonlyMap<string, BudgetKind>,
): string {
  const rows = results.map((r) => [
    r.name,
    r.value === null ? '-' : String(r.value),
    r.unit,
    r.budget === null ? '-' : `${kinds.get(r.name) === 'min' ? '>=' : '<='} ${r.budget}`,
    r.reference === undefined ? '' : String(r.reference),
    r.ratio === undefined ? '' : String(r.ratio),
    r.budget === null ? 'info' : r.ok === null ? 'n/a' : r.ok ? 'ok' : 'MISS',
    r.reason ?? '',
  ]);
  const header = ['figure', 'value', 'unit', 'budget', 'reference', 'ratio', 'ok', 'note'];
  const widths = header.map((h, i) =>
    i === header.length - 1 ? 0 : Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(Math.max(w, 4)))),
    ...rows.map(line),
  ].join('\n');
}
