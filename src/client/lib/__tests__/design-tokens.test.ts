import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installDesignTokens } from '../../testing/design-tokens.ts';
import { readDesignTokens, useDesignTokens } from '../design-tokens.ts';

/** A `matchMedia` whose `prefers-color-scheme: dark` answer the test flips. */
function fakeColourScheme(initiallyDark: boolean) {
  let dark = initiallyDark;
  const listeners = new Set<() => void>();
  vi.stubGlobal('matchMedia', (query: string) => ({
    get matches() {
      return query.includes('dark') ? dark : false;
    },
    media: query,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  }));
  return {
    setDark(next: boolean) {
      dark = next;
      for (const listener of listeners) listener();
    },
  };
}

describe('design tokens', () => {
  let remove: () => void = () => {};
  beforeEach(() => {
    remove = installDesignTokens();
  });
  afterEach(() => {
    remove();
    vi.unstubAllGlobals();
  });

  it('reads the status, reason and surface colours of tokens.css as literal values', () => {
    const tokens = readDesignTokens();
    expect(tokens.status.received).toEqual({ fill: '#1d4ed8', text: '#ffffff' });
    expect(tokens.status.cancelled.fill).toMatch(/^#[0-9a-f]{6}$/);
    expect(tokens.reason.deviceFault).toMatch(/^#[0-9a-f]{6}$/);
    expect(tokens.surface).toBe('#ffffff');
  });

  it('says which token is missing when the stylesheet is not loaded', () => {
    remove();
    expect(() => readDesignTokens()).toThrow(/--bg is not defined/);
  });

  it('follows a switch of the colour scheme', () => {
    const scheme = fakeColourScheme(false);
    const { result } = renderHook(() => useDesignTokens());
    const light = result.current;
    // happy-dom does not evaluate media queries in stylesheets: the dark values are put on the
    // root as the browser would resolve them.
    document.documentElement.style.setProperty('--surface', '#181c23');
    act(() => scheme.setDark(true));
    expect(result.current.surface).toBe('#181c23');
    expect(result.current).not.toBe(light);
    document.documentElement.style.removeProperty('--surface');
  });
});
