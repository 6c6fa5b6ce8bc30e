import { useMemo, useSyncExternalStore } from 'react';
import { z } from 'zod';
import {
  CANCELLATION_REASONS,
  COMMAND_STATUSES,
  type CancellationReason,
  type CommandStatus,
} from '#domain/command.ts';
import { POWER_CONTROL_PROPERTIES, type PowerControlProperty } from '#domain/power-control.ts';
import { VERDICTS, type Verdict } from '#domain/verdict.ts';

/** The colour tokens of `styles/tokens.css`, read (not copied) for canvas and SVG drawing so both agree with the page. */

/** A status's fill and the text written on it (`--status-<status>`, `--status-<status>-text`). */
export interface StatusColours {
  fill: string;
  text: string;
}

/** Every colour token of the theme in use, each a CSS colour string such as `#1d4ed8`. */
export interface DesignTokens {
  bg: string;
  surface: string;
  surface2: string;
  text: string;
  muted: string;
  border: string;
  controlBorder: string;
  accent: string;
  accentText: string;
  focus: string;
  danger: string;
  success: string;
  warning: string;
  fontFamily: string;
  status: Record<CommandStatus, StatusColours>;
  reason: Record<CancellationReason, string>;
  /** The mark of each power control's series on a chart (`--power-control-<property>`). */
  powerControl: Record<PowerControlProperty, string>;
  /** The mark of each verdict (`--verdict-<verdict>`): a badge's icon, a count bar's share. */
  verdict: Record<Verdict, string>;
  /** Measured telemetry on a chart: battery power and state of charge (`--measured-*`). */
  measuredBatteryPower: string;
  measuredSoc: string;
  /** The band behind a command window on a chart (`--command-window`). */
  commandWindow: string;
}

const BASE_TOKENS = {
  bg: '--bg',
  surface: '--surface',
  surface2: '--surface-2',
  text: '--text',
  muted: '--muted',
  border: '--border',
  controlBorder: '--control-border',
  accent: '--accent',
  accentText: '--accent-text',
  focus: '--focus',
  danger: '--danger',
  success: '--success',
  warning: '--warning',
  fontFamily: '--font-family',
  measuredBatteryPower: '--measured-battery-power',
  measuredSoc: '--measured-soc',
  commandWindow: '--command-window',
} as const satisfies Record<string, `--${string}`>;

const TokenValueSchema = z.string().trim().min(1);

/**
 * Reads the design tokens as `element` resolves them, in the current colour scheme.
 *
 * @throws Error naming the first undefined token (`styles/tokens.css` not loaded).
 */
export function readDesignTokens(element: Element = document.documentElement): DesignTokens {
  const style = getComputedStyle(element);
  const read = (name: `--${string}`): string => {
    const value = TokenValueSchema.safeParse(style.getPropertyValue(name));
    if (!value.success)
      throw new Error(`Design token ${name} is not defined: is styles/tokens.css loaded?`);
    return value.data;
  };
  const base = Object.fromEntries(
    Object.entries(BASE_TOKENS).map(([key, name]) => [key, read(name)]),
  ) as Record<keyof typeof BASE_TOKENS, string>;
  return {
    ...base,
    status: Object.fromEntries(
      COMMAND_STATUSES.map((status) => [
        status,
        { fill: read(`--status-${status}`), text: read(`--status-${status}-text`) },
      ]),
    ) as Record<CommandStatus, StatusColours>,
    reason: Object.fromEntries(
      CANCELLATION_REASONS.map((reason) => [reason, read(`--reason-${reason}`)]),
    ) as Record<CancellationReason, string>,
    powerControl: Object.fromEntries(
      POWER_CONTROL_PROPERTIES.map((property) => [property, read(`--power-control-${property}`)]),
    ) as Record<PowerControlProperty, string>,
    verdict: Object.fromEntries(
      VERDICTS.map((verdict) => [verdict, read(`--verdict-${verdict}`)]),
    ) as Record<Verdict, string>,
  };
}

const DARK_QUERY = '(prefers-color-scheme: dark)';

function subscribeToScheme(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {};
  const media = window.matchMedia(DARK_QUERY);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

const currentScheme = (): 'light' | 'dark' =>
  typeof window.matchMedia === 'function' && window.matchMedia(DARK_QUERY).matches
    ? 'dark'
    : 'light';

/** `light` or `dark`: the colour scheme the page follows now, updated when the system's changes. */
export function useColourScheme(): 'light' | 'dark' {
  return useSyncExternalStore(subscribeToScheme, currentScheme, () => 'light');
}

/**
 * {@link readDesignTokens}, read again when the system switches light/dark.
 *
 * @throws Error when `styles/tokens.css` is not loaded.
 */
export function useDesignTokens(): DesignTokens {
  const scheme = useColourScheme();
  // The scheme is the cache key: the tokens change only when it does.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  return useMemo(() => readDesignTokens(), [scheme]);
}
