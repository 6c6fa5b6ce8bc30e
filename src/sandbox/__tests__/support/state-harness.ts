import { SandboxClock } from '../../clock.ts';
import { Catalog } from '../../fixtures/catalog.ts';
import { DEMO_CAPABILITIES } from '../../fixtures/demo-fixture.ts';
import type { Fixture } from '../../fixtures/fixture-types.ts';
import type { ClientIdentity } from '../../state/client-identity.ts';
import { MemoryPersistence } from '../../state/persistence.ts';
import { SandboxState } from '../../state/sandbox-state.ts';

/** A small fixture: two Europe clients, one site with three devices (C lacks export limits). */
export const SMALL_FIXTURE: Fixture = {
  clients: [
    { clientId: 'alpha', clientSecret: 'alpha-secret', region: 'eu' },
    { clientId: 'beta', clientSecret: 'beta-secret', region: 'eu' },
  ],
  sites: [
    {
      siteId: 'SITE-1',
      region: 'eu',
      name: 'Site one',
      timeZone: 'Europe/Berlin',
      devices: ['DEV-A', 'DEV-B', 'DEV-C'].map((deviceId) => ({
        deviceId,
        siteId: 'SITE-1',
        name: deviceId,
        model: 'test',
        capabilities:
          deviceId === 'DEV-C'
            ? Object.fromEntries(
                Object.entries(DEMO_CAPABILITIES).filter(([p]) => p !== 'siteExportLimitW'),
              )
            : DEMO_CAPABILITIES,
        online: true,
      })),
    },
  ],
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
