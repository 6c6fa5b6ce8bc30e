import { describe, expect, it } from 'vitest';
import { CANCELLATION_REASONS, COMMAND_STATUSES } from '#domain/command.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { VERDICTS } from '#domain/verdict.ts';
import tokensCss from '../tokens.css?raw';

/** The `--name: value` declarations of one block of CSS text. */
function declarations(block: string): Map<string, string> {
  const withoutComments = block.replace(/\/\*[\s\S]*?\*\//g, '');
  return new Map(
    [...withoutComments.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => [
      m[1] ?? '',
      (m[2] ?? '').trim(),
    ]),
  );
}

const darkStart = tokensCss.indexOf('@media (prefers-color-scheme: dark)');
const light = declarations(tokensCss.slice(0, darkStart));
const dark = new Map([...light, ...declarations(tokensCss.slice(darkStart))]);

/** WCAG 2.2 relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

const TEXT = ['--text', '--muted', '--accent', '--danger', '--success', '--warning'];
const NON_TEXT = [
  '--focus',
  '--control-border',
  ...COMMAND_STATUSES.map((s) => `--status-${s}`),
  ...CANCELLATION_REASONS.map((r) => `--reason-${r}`),
  ...POWER_CONTROL_PROPERTIES.map((p) => `--power-control-${p}`),
  '--power-discharging',
  '--power-charging',
  ...VERDICTS.map((v) => `--verdict-${v}`),
  '--measured-battery-power',
  '--measured-soc',
];
const SURFACES = ['--surface', '--surface-2', '--bg'];

describe.each([
  ['light', light],
  ['dark', dark],
])('%s theme tokens', (_theme, tokens) => {
  const colour = (name: string): string => {
    const value = tokens.get(name);
    if (!value || !/^#[0-9a-f]{6}$/i.test(value))
      throw new Error(`${name} is not a #rrggbb colour`);
    return value;
  };
  const failures = (pairs: [string, string, number][]) =>
    pairs
      .map(([fg, bg, target]) => ({ fg, bg, ratio: contrast(colour(fg), colour(bg)), target }))
      .filter(({ ratio, target }) => ratio < target)
      .map(({ fg, bg, ratio }) => `${fg} on ${bg}: ${ratio.toFixed(2)}`);

  it('keeps text at 4.5:1 on every surface', () => {
    expect(
      failures(TEXT.flatMap((fg) => SURFACES.map((bg): [string, string, number] => [fg, bg, 4.5]))),
    ).toEqual([]);
  });

  it('keeps focus, control edges, status fills, reason, power control, verdict and measured marks at 3:1 against the page', () => {
    expect(
      failures(
        NON_TEXT.flatMap((fg) =>
          ['--surface', '--bg'].map((bg): [string, string, number] => [fg, bg, 3]),
        ),
      ),
    ).toEqual([]);
  });

  it('keeps the text on each status fill at 4.5:1, and each fill readable as text', () => {
    expect(
      failures(
        COMMAND_STATUSES.flatMap((s): [string, string, number][] => [
          [`--status-${s}-text`, `--status-${s}`, 4.5],
          [`--status-${s}`, '--surface', 4.5],
        ]),
      ),
    ).toEqual([]);
    expect(contrast(colour('--accent-text'), colour('--accent'))).toBeGreaterThanOrEqual(4.5);
  });
});
