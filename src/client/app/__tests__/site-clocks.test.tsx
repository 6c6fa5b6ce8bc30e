import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeSitesBff } from '../../testing/fake-sites-bff.ts';
import { dateTimeField, shownDateTime } from '../../testing/form-fields.ts';
import { renderApp } from '../../testing/render.tsx';
import { companySession } from '../../testing/sessions.ts';
import {
  adelaideDepot,
  BATTERY_A,
  brisbaneYard,
  harbourPlant,
} from '../../testing/test-devices.ts';
// Loaded ahead: lazy routes and the dialog transform on first use, which a loaded machine makes slow.
import '../routes/sites.tsx';
import '../routes/device.tsx';
import '../../features/sites/components/site-time-zone-dialog.tsx';

const NOW = '2026-11-21T00:52:00Z';
const SITES = [adelaideDepot(), harbourPlant([{ ...BATTERY_A, faulted: true }]), brisbaneYard()];

const siteSection = (name: RegExp) => screen.getByRole('region', { name });

describe('site clocks on the sites page', () => {
  it("shows each site's clock where its facts are, the fixed offset as a warning", async () => {
    fakeSitesBff({ sites: SITES, nowIso: NOW });
    renderApp('/sites');
    const adelaide = await screen.findByRole('region', { name: /Adelaide Depot/ });
    expect(within(adelaide).getByText('Time zone').nextElementSibling?.textContent).toBe(
      'UTC+09:30 (fixed: no daylight saving time)',
    );
    expect(adelaide.querySelector('.site-clock-warning')?.textContent).toContain(
      'Times for Adelaide Depot are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
    );
    expect(within(adelaide).getByRole('button', { name: "Set the site's time zone" })).toBeTruthy();
    expect(siteSection(/Harbour plant/).querySelector('.site-clock-note')?.textContent).toContain(
      'worked out from Germany and UTC+1:00',
    );
    expect(siteSection(/Brisbane Yard/).querySelector('.site-clock-quiet')).toBeTruthy();
  });

  it('tells a dispatcher that an administrator sets a time zone, and offers an administrator the dialog', async () => {
    fakeSitesBff({
      sites: SITES,
      nowIso: NOW,
      session: companySession('dispatcher', 'Vera', 'au'),
    });
    const first = renderApp('/sites');
    const adelaide = await screen.findByRole('region', { name: /Adelaide Depot/ });
    expect(within(adelaide).queryByRole('button', { name: "Set the site's time zone" })).toBeNull();
    expect(adelaide.textContent).toContain(
      "Only an administrator can set a site's time zone; you are signed in as a dispatcher. Ask one to set it.",
    );
    first.unmount();

    fakeSitesBff({ sites: SITES, nowIso: NOW, session: companySession('admin', 'Vera', 'au') });
    renderApp('/sites');
    const again = await screen.findByRole('region', { name: /Adelaide Depot/ });
    expect(within(again).getByRole('button', { name: "Set the site's time zone" })).toBeTruthy();
  });

  it('marks a device the vendor reports faulted, in words', async () => {
    fakeSitesBff({ sites: SITES, nowIso: NOW });
    renderApp('/sites');
    const harbour = await screen.findByRole('region', { name: /Harbour plant/ });
    const row = within(harbour).getByRole('row', { name: /BAT-EU-001-A/ });
    expect(row.textContent).toContain('⚠ faulted, online');
  });
});

describe('site clocks on the device page', () => {
  it('says the site is on a fixed offset, and after the zone is set every time on the page follows', async () => {
    const user = userEvent.setup();
    fakeSitesBff({ sites: SITES, nowIso: NOW });
    renderApp('/sites/PLANT-AU-002/devices/BAT-AU-002-D');
    await screen.findByRole('heading', { level: 1, name: /Battery D/ });
    expect(document.querySelector('.site-clock-warning')?.textContent).toContain(
      'Times for Adelaide Depot are on a fixed UTC+09:30 clock',
    );
    await waitFor(() => expect(shownDateTime('Start')).toMatch(/GMT\+9:30$/));

    await user.click(screen.getByRole('button', { name: "Set the site's time zone" }));
    const dialog = await screen.findByRole('dialog', { name: 'Time zone of Adelaide Depot' });
    await user.click(within(dialog).getByRole('searchbox'));
    await user.paste('darwin');
    await user.keyboard('{ArrowDown}{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Save time zone' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.querySelector('.site-clock-text')?.textContent).toBe(
      'Times for Adelaide Depot are on Australia/Darwin.',
    );
    expect(screen.getByText('Time zone').nextElementSibling?.textContent).toBe('Australia/Darwin');
    expect(within(dateTimeField('Start')).getByText(/GMT/).textContent).toBe('GMT+9:30');
    expect(screen.getByText(/Start and end are on the clock/).textContent).toContain(
      'Australia/Darwin',
    );
  }, 30_000);
});
