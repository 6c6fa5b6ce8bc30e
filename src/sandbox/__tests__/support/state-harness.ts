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

/** A sandbox state in memory on a frozen wall clock at {@link START_MS}. */
export async function openSmallState(): Promise<SandboxState> {
  return SandboxState.open({
    catalog: new Catalog(SMALL_FIXTURE),
    clock: new SandboxClock(() => START_MS),
    persistence: new MemoryPersistence(),
    fixtureName: 'small',
    history: () => [],
  });
}
