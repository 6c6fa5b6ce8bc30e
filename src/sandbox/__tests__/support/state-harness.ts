import { SandboxClock } from '../../clock.ts';
import { Catalog } from '../../fixtures/catalog.ts';
import { fixtureDevice, POWERSTACK_10 } from '../../fixtures/demo-fixture.ts';
import type { Fixture, FixtureSite } from '../../fixtures/fixture-types.ts';
import type { ClientIdentity } from '../../state/client-identity.ts';
import { MemoryPersistence } from '../../state/persistence.ts';
import { SandboxState } from '../../state/sandbox-state.ts';

const site: Omit<FixtureSite, 'devices'> = {
  siteId: 'SITE-1',
  region: 'eu',
  name: 'Site one',
  countryCode: 'DE',
  address: 'Teststraße 1, Berlin',
  timezone: 'UTC+1:00',
  ianaZone: 'Europe/Berlin',
  installDate: '2024-01-01T00:00:00Z',
  gridMeterId: 'DE-TEST',
  gridConnectionPhaseType: 'threePhase',
  gridCode: 'VDE-AR-N 4105',
  owner: 'Test GmbH',
};

/**
 * A small fixture: two Europe clients, one site with three 5 kW devices (C lacks export limits).
 */
export const SMALL_FIXTURE: Fixture = {
  clients: [
    { clientId: 'alpha', clientSecret: 'alpha-secret', region: 'eu' },
    { clientId: 'beta', clientSecret: 'beta-secret', region: 'eu' },
  ],
  sites: [
    {
      ...site,
      devices: ['DEV-A', 'DEV-B', 'DEV-C'].map((deviceId) =>
        fixtureDevice(site, deviceId, deviceId, POWERSTACK_10, {
          lacks: deviceId === 'DEV-C' ? ['siteExportLimitW'] : [],
        }),
      ),
    },
  ],
  bindings: [],
};

export const ALPHA: ClientIdentity = { clientId: 'alpha', region: 'eu' };
export const BETA: ClientIdentity = { clientId: 'beta', region: 'eu' };
export const START_MS = Date.parse('2030-01-01T00:00:00.000Z');

/**
 * Moves the state's clock a minute on: every device has its slots of the rate limit back (2
 * requests per device per rolling minute; docs/upstream.md, Rate limit).
 */
export async function nextMinute(state: SandboxState): Promise<void> {
  await state.moveClock(state.nowMs() + 60_000);
}

/**
 * A sandbox state in memory on a frozen wall clock at {@link START_MS}, with the vendor's rate
 * limit (2 requests per device per minute) unless `deviceCallsPerMinute` says otherwise (0 = off).
 */
export async function openSmallState(
  options: { deviceCallsPerMinute?: number } = {},
): Promise<SandboxState> {
  return SandboxState.open({
    catalog: new Catalog(SMALL_FIXTURE),
    clock: new SandboxClock(() => START_MS),
    persistence: new MemoryPersistence(),
    fixtureName: 'small',
    history: () => [],
    deviceCallsPerMinute: options.deviceCallsPerMinute,
  });
}
