import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import {
  adelaideDepot,
  BATTERY_A,
  BATTERY_D,
  brisbaneYard,
  harbourPlant,
} from '#client/testing/test-devices.ts';
import { SiteClocks, sitesOfDevices } from '../site-clock.tsx';

/** A site on the vendor's fixed offset, named `name`. */
const fixed = (n: number): Site => ({
  ...adelaideDepot(),
  siteId: `PLANT-F-${n}`,
  name: `Fixed ${n}`,
});

const signedIn = () => stubFetch(() => json(200, { region: 'au', clientId: 'demo-au' }));
const notices = () =>
  [...document.querySelectorAll('.site-clock-text')].map((p) => p.textContent?.replace('⚠ ', ''));

describe('SiteClocks, the clock notices of a page over sites', () => {
  it("tells one site's clock whatever it is", () => {
    signedIn();
    renderWithProviders(<SiteClocks sites={[harbourPlant()]} />);
    expect(notices()).toEqual([
      'Times for Harbour plant are on Europe/Berlin, worked out from Germany and UTC+1:00.',
    ]);
  });

  it('of several sites, names only those on a fixed offset, the fourth and later in one line', () => {
    signedIn();
    renderWithProviders(
      <SiteClocks
        sites={[harbourPlant(), fixed(1), brisbaneYard(), fixed(2), fixed(3), fixed(4)]}
      />,
    );
    expect(notices()).toEqual([
      'Times for Fixed 1 are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
      'Times for Fixed 2 are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
      'Times for Fixed 3 are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
    ]);
    expect(screen.getByText(/1 more site is on a fixed UTC offset/).textContent).toBe(
      '1 more site is on a fixed UTC offset that does not follow daylight saving time: Fixed 4. Set their time zones on the Sites page.',
    );
  });

  it('says nothing for several sites on zones that follow the seasons', () => {
    signedIn();
    const { container } = renderWithProviders(
      <SiteClocks sites={[harbourPlant(), brisbaneYard()]} />,
    );
    expect(container.textContent).toBe('');
  });

  it('finds the bound sites of a set of devices', () => {
    const sites = [harbourPlant([BATTERY_A]), adelaideDepot([BATTERY_D]), brisbaneYard()];
    expect(sitesOfDevices(sites, ['BAT-AU-002-D']).map((s) => s.siteId)).toEqual(['PLANT-AU-002']);
    expect(sitesOfDevices(undefined, ['BAT-AU-002-D'])).toEqual([]);
  });
});
