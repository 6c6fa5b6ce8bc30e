import type { Behaviour } from '#sandbox/model/behaviours.ts';
import { E2E_LARGE_SANDBOX_PORT, E2E_SANDBOX_PORT } from '../../playwright.config.ts';

async function call(port: number, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}/_sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`sandbox admin ${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** The admin API (docs/architecture.md, Upstream contract: Sandbox admin API) of the sandbox listening on `port`, as the browser tests drive it. */
export function sandboxAdminAt(port: number) {
  return {
    /** Back to the fixture: no bindings, no commands, clock = wall clock. */
    reset: () => call(port, 'POST', '/reset'),
    /** Moves the sandbox clock forward; due transitions run at once. */
    advanceClock: (advanceMs: number) => call(port, 'POST', '/clock', { advanceMs }),
    /** Sets the sandbox clock to an instant (forward only). */
    setClock: (now: Date) => call(port, 'POST', '/clock', { now: now.toISOString() }),
    /** Current sandbox time. */
    now: async () => new Date(((await call(port, 'GET', '/clock')) as { now: string }).now),
    /**
     * The vendor routes' request counts since the start, a reset or {@link clearStats}: `byRoute`
     * keyed `region METHOD route`, e.g. `eu PUT /devices/:deviceId/commands/:commandId/cancel`.
     */
    stats: async () => (await call(port, 'GET', '/stats')) as { byRoute: Record<string, number> },
    /** Counts from zero again. */
    clearStats: () => call(port, 'DELETE', '/stats'),
    /**
     * Takes a device offline, faults it or sets its behaviour (src/sandbox/README.md,
     * Behaviours), until the next reset.
     */
    setDevice: (
      deviceId: string,
      state: { online?: boolean; fault?: boolean; behaviour?: Behaviour },
    ) => call(port, 'PUT', `/devices/${deviceId}`, state),
    /**
     * Replaces the injected faults of every region route (e.g. `{ errorRate: 1, errorStatus: 503 }`
     * for an outage); `{}` clears them.
     */
    setFaults: (faults: {
      latencyMs?: number;
      errorRate?: number;
      errorStatus?: number;
      rateLimitPerMinute?: number;
      tokenTtlS?: number;
    }) => call(port, 'PUT', '/faults', faults),
  };
}

/** Admin API of the demo-fixture stack (the tests outside `e2e/large/`). */
export const sandboxAdmin = sandboxAdminAt(E2E_SANDBOX_PORT);

/**
 * Admin API of the `large`-fixture stack. Tests under `e2e/large/` do not reset it: re-seeding
 * 20,000 commands per test would dominate the run; they only read and bind idempotently.
 */
export const largeSandboxAdmin = sandboxAdminAt(E2E_LARGE_SANDBOX_PORT);
