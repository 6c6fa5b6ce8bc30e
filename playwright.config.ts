import os from 'node:os';
import path from 'node:path';
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';
import {
  PROJECT_FOLDERS,
  projectsToRun,
  specFilesByFolder,
  type ProjectName,
} from './scripts/e2e-projects.ts';
import { ALL_READY, type StackSpec } from './scripts/e2e-stacks.ts';
import { CHROMIUM_ARGS, findChromium } from './scripts/find-chromium.ts';

/**
 * Offset added to every port of the browser tests' stacks (`E2E_PORT_OFFSET`, default 0), so two
 * checkouts on one machine can run their browser suites at the same time.
 *
 * Every port below sits under 32768, outside Linux's default range of ephemeral ports
 * (32768-60999, `net.ipv4.ip_local_port_range`): a stack started mid-run on a port in that range
 * can find it taken as the local end of one of the run's own outgoing connections (a clean-clone
 * run's budget stack once failed with EADDRINUSE on 58090 that way).
 */
const portOffset = Number(process.env.E2E_PORT_OFFSET ?? 0);
/** Ports of the demo-fixture stack the browser tests start, away from the `npm start` defaults. */
export const E2E_BFF_PORT = 18080 + portOffset;
export const E2E_SANDBOX_PORT = 18090 + portOffset;
/** Ports of a second stack on the `large` fixture, for the tests under `e2e/large/`. */
export const E2E_LARGE_BFF_PORT = 28080 + portOffset;
export const E2E_LARGE_SANDBOX_PORT = 28090 + portOffset;

/**
 * Ports of a third stack in company sign-in mode (OIDC) with the test identity provider, for the
 * tests under `e2e/company-sign-in/`.
 */
export const E2E_TEAMS_BFF_PORT = 18180 + portOffset;
export const E2E_TEAMS_SANDBOX_PORT = 18190 + portOffset;
export const E2E_TEAMS_IDP_PORT = 18170 + portOffset;

/**
 * Ports of the same company sign-in stack against Glewlwyd (Debian's `glewlwyd`, set up by
 * scripts/glewlwyd-dev.ts) for the same specs in the project `company-sign-in-glewlwyd`: its
 * pages and API on E2E_GLEWLWYD_PORT, Glewlwyd itself on the port after it.
 */
export const E2E_GLEWLWYD_PORT = 18160 + portOffset;
export const E2E_GLEWLWYD_BFF_PORT = 18380 + portOffset;
export const E2E_GLEWLWYD_SANDBOX_PORT = 18390 + portOffset;

/**
 * Ports of a fourth stack, started by the tests under `e2e/prism/` themselves (only when they
 * run): a BFF without the sandbox, whose upstream is a Prism mock of docs/upstream.openapi.yaml,
 * and the relay that picks each region's token example (e2e/support/prism-stack.ts).
 */
export const E2E_PRISM_BFF_PORT = 28180 + portOffset;
export const E2E_PRISM_MOCK_PORT = 28110 + portOffset;
export const E2E_PRISM_TOKEN_PORT = 28111 + portOffset;

/**
 * Ports of a fifth stack, started (and restarted) by the tests under `e2e/budget/` themselves:
 * `npm start`'s sandbox and BFF at the vendor's real limit of 2 calls per device and minute on
 * both sides (e2e/support/budget-stack.ts).
 */
export const E2E_BUDGET_BFF_PORT = 18280 + portOffset;
export const E2E_BUDGET_SANDBOX_PORT = 18290 + portOffset;

const runDir = path.join(os.tmpdir(), `powerdeck-e2e-${process.pid}`);

/**
 * The specs under `e2e/prism/`. A pattern, not the glob `prism/**`: Playwright matches a glob
 * against the whole path, so a checkout in a folder named `prism` would match every spec.
 */
const PRISM_SPECS = /[\\/]e2e[\\/]prism[\\/][^\\/]+\.spec\.ts$/;
/** The specs under `e2e/budget/`, for the same reason. */
const BUDGET_SPECS = /[\\/]e2e[\\/]budget[\\/][^\\/]+\.spec\.ts$/;

const stack = (bffPort: number, sandboxPort: number, fixture: 'demo' | 'large') => ({
  name: `powerdeck ${fixture} ${bffPort}`,
  command: 'npx tsx scripts/start.ts',
  url: `http://127.0.0.1:${bffPort}/api/session`,
  timeoutMs: 180_000,
  env: {
    PORT: String(bffPort),
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_FIXTURE: fixture,
    DATA_DIR: path.join(runDir, fixture),
    // `E2E_LOG_LEVEL=debug` shows what the stacks' read model read, and when, to mend a slow test.
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    // The test-only route that makes a notification (e2e/live-updates.spec.ts); loopback only.
    TEST_ROUTES: '1',
    // The browser tests' receivers listen on loopback.
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    // The browser tests walk an operator's flows at test speed: a submission, its cancel, an undo
    // and a replace of one device within seconds, more than the vendor's 2 calls per device and
    // minute. The sandbox and the BFF's budget run as for an account with a limit of 30, so a
    // test waits for nothing; queueing under the vendor's 2 is tested in test/integration
    // (read-model-budget, change queue) and by the timeline's replace tests, which move the clock.
    SANDBOX_RATE_LIMIT_PER_MINUTE: '30',
    EU_DEVICE_CALLS_PER_MINUTE: '30',
    AU_DEVICE_CALLS_PER_MINUTE: '30',
  },
});

const teamsOrigin = `http://127.0.0.1:${E2E_TEAMS_BFF_PORT}`;
const teamsIdp = {
  name: 'test identity provider',
  command: 'npx tsx scripts/idp-dev.ts',
  url: `http://127.0.0.1:${E2E_TEAMS_IDP_PORT}/.well-known/openid-configuration`,
  timeoutMs: 120_000,
  env: { IDP_PORT: String(E2E_TEAMS_IDP_PORT), IDP_REDIRECT_ORIGINS: teamsOrigin },
};
const teamsStack = {
  ...stack(E2E_TEAMS_BFF_PORT, E2E_TEAMS_SANDBOX_PORT, 'demo'),
  name: `powerdeck company sign-in ${E2E_TEAMS_BFF_PORT}`,
  env: {
    ...stack(E2E_TEAMS_BFF_PORT, E2E_TEAMS_SANDBOX_PORT, 'demo').env,
    DATA_DIR: path.join(runDir, 'teams'),
    PUBLIC_ORIGIN: teamsOrigin,
    OIDC_ISSUER: `http://127.0.0.1:${E2E_TEAMS_IDP_PORT}`,
    OIDC_CLIENT_ID: 'powerdeck',
    OIDC_CLIENT_SECRET: 'powerdeck-test-idp-secret',
  },
};

const glewlwydOrigin = `http://127.0.0.1:${E2E_GLEWLWYD_BFF_PORT}`;
/** A secret with `-` and `/`, which Glewlwyd refuses as HTTP Basic (docs/decisions/004). */
const GLEWLWYD_CLIENT_SECRET = 'powerdeck-e2e/glewlwyd-secret';
const glewlwydIdp = {
  name: 'Glewlwyd',
  command: 'npx tsx scripts/glewlwyd-dev.ts',
  url: `http://127.0.0.1:${E2E_GLEWLWYD_PORT}/api/oidc/.well-known/openid-configuration`,
  timeoutMs: 120_000,
  env: {
    GLEWLWYD_PORT: String(E2E_GLEWLWYD_PORT),
    GLEWLWYD_REDIRECT_ORIGIN: glewlwydOrigin,
    GLEWLWYD_CLIENT_SECRET,
  },
};
const glewlwydStack = {
  ...stack(E2E_GLEWLWYD_BFF_PORT, E2E_GLEWLWYD_SANDBOX_PORT, 'demo'),
  name: `powerdeck Glewlwyd sign-in ${E2E_GLEWLWYD_BFF_PORT}`,
  env: {
    ...stack(E2E_GLEWLWYD_BFF_PORT, E2E_GLEWLWYD_SANDBOX_PORT, 'demo').env,
    DATA_DIR: path.join(runDir, 'glewlwyd'),
    PUBLIC_ORIGIN: glewlwydOrigin,
    OIDC_ISSUER: `http://127.0.0.1:${E2E_GLEWLWYD_PORT}/api/oidc`,
    OIDC_CLIENT_ID: 'powerdeck',
    OIDC_CLIENT_SECRET: GLEWLWYD_CLIENT_SECRET,
  },
};

const testDir = path.join(import.meta.dirname, 'e2e');
const specs = specFilesByFolder(testDir);
/** Each project's stacks (its spec folder: PROJECT_FOLDERS of scripts/e2e-projects.ts). */
const PROJECT_STACKS: Record<ProjectName, readonly ('demo' | 'large' | 'teams' | 'glewlwyd')[]> = {
  demo: ['demo'],
  large: ['large'],
  firefox: ['demo'],
  'company-sign-in': ['teams'],
  'company-sign-in-glewlwyd': ['glewlwyd'],
  // Its spec starts its own stack (e2e/support/prism-stack.ts).
  prism: [],
  // Its spec starts its own stack, and restarts its BFF (e2e/support/budget-stack.ts).
  budget: [],
};
const running = projectsToRun(
  process.argv,
  Object.entries(PROJECT_FOLDERS).map(([name, folder]) => ({
    name,
    files: specs.get(folder) ?? [],
  })),
);
const stacksNeeded = new Set(
  Object.entries(PROJECT_STACKS).flatMap(([name, stacks]) =>
    running.has(name) ? [...stacks] : [],
  ),
);
/** The test stacks, each started only when a project that runs needs it (e2e-projects.ts). */
const STACKS: Record<'demo' | 'large' | 'teams' | 'glewlwyd', StackSpec[]> = {
  demo: [stack(E2E_BFF_PORT, E2E_SANDBOX_PORT, 'demo')],
  large: [stack(E2E_LARGE_BFF_PORT, E2E_LARGE_SANDBOX_PORT, 'large')],
  teams: [teamsIdp, teamsStack],
  glewlwyd: [glewlwydIdp, glewlwydStack],
};

/**
 * The one `webServer` that starts `stacks` all at once (scripts/e2e-stacks.ts says why not an
 * entry per stack), or none.
 */
function stacksWebServer(stacks: StackSpec[]): PlaywrightTestConfig['webServer'] {
  if (stacks.length === 0) return undefined;
  return {
    name: 'stacks',
    command: 'npx tsx scripts/e2e-stacks.ts',
    env: { E2E_STACKS: JSON.stringify(stacks) },
    wait: { stdout: new RegExp(`^${ALL_READY}$`, 'm') },
    // Its stacks' own limits apply; this one only stops a launcher that hangs.
    timeout: Math.max(...stacks.map((s) => s.timeoutMs)) + 30_000,
    stdout: 'pipe',
    // SIGTERM, not Playwright's default SIGKILL, so the script stops its stacks (and Glewlwyd's
    // script removes its throwaway folder).
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
  };
}

export default defineConfig({
  testDir,
  fullyParallel: false,
  workers: 1,
  // CI tries a failed test once more: the list reporter still names it flaky, so a race stays
  // visible (the Firefox tour once logged a render error on the overview after sign-in).
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
    // No trace by default: 'retain-on-failure' records one for every test and throws it away when
    // the test passes, a quarter of timeline.spec.ts's time on this 2-core machine. A failure keeps
    // its screenshot; for its trace, run the spec again with `--trace=retain-on-failure`.
    trace: 'off',
    screenshot: 'only-on-failure',
    timezoneId: 'UTC',
  },
  projects: [
    {
      name: 'demo',
      testIgnore: ['large/**', 'company-sign-in/**', 'firefox/**', PRISM_SPECS, BUDGET_SPECS],
      use: { baseURL: `http://127.0.0.1:${E2E_BFF_PORT}` },
    },
    {
      name: 'large',
      testMatch: 'large/**/*.spec.ts',
      use: { baseURL: `http://127.0.0.1:${E2E_LARGE_BFF_PORT}` },
      // Pages right after binding two 50-device sites: beside a second browser test process on a
      // loaded machine, the next page took over 10 s to open.
      expect: { timeout: 20_000 },
    },
    {
      // The system Firefox (140 ESR) driven by Puppeteer over WebDriver BiDi on the demo stack:
      // the core journey and the console-error tour (e2e/support/firefox.ts says why not
      // Playwright). Its tests use the `ui` fixture, never Playwright's `page`.
      name: 'firefox',
      testMatch: 'firefox/**/*.spec.ts',
      use: { baseURL: `http://127.0.0.1:${E2E_BFF_PORT}` },
    },
    {
      name: 'company-sign-in',
      testMatch: 'company-sign-in/**/*.spec.ts',
      use: { baseURL: teamsOrigin },
    },
    {
      // The same specs against Glewlwyd, whose pages differ (e2e/support/idp-pages.ts).
      name: 'company-sign-in-glewlwyd',
      testMatch: 'company-sign-in/**/*.spec.ts',
      use: { baseURL: glewlwydOrigin },
    },
    {
      // The product against the vendor's contract as published: a BFF whose upstream is a Prism
      // mock of docs/upstream.openapi.yaml, a stack the spec starts itself.
      name: 'prism',
      testMatch: PRISM_SPECS,
      use: { baseURL: `http://127.0.0.1:${E2E_PRISM_BFF_PORT}` },
    },
    {
      // The vendor's real limit, 2 calls per device and minute, on the sandbox and in the BFF's
      // budget: queued changes, and their life across a restart of the BFF, a stack the spec
      // starts and restarts itself.
      name: 'budget',
      testMatch: BUDGET_SPECS,
      use: { baseURL: `http://127.0.0.1:${E2E_BUDGET_BFF_PORT}` },
    },
  ],
  webServer: stacksWebServer(
    (['demo', 'large', 'teams', 'glewlwyd'] as const).flatMap((name) =>
      stacksNeeded.has(name) ? STACKS[name] : [],
    ),
  ),
});
