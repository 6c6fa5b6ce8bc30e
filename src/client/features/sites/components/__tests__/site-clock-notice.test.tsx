import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { ToastRegion } from '#client/components/toast.tsx';
import { formatInZoneWithUtc } from '#client/lib/time.ts';
import { fakeSitesBff } from '#client/testing/fake-sites-bff.ts';
import { createTestQueryClient, renderWithProviders } from '#client/testing/render.tsx';
import { adelaideDepot, brisbaneYard, harbourPlant } from '#client/testing/test-devices.ts';
import { useSites } from '../../api/get-sites.ts';
import { siteKeys } from '../../api/site-keys.ts';
import { SiteClockNotice } from '../site-clock-notice.tsx';
// The dialog is loaded on first open; loaded here, its transform is not counted in a test's time.
import '../site-time-zone-dialog.tsx';

const NOW = '2026-11-21T00:52:00Z';
/** An instant every screen of the site shows: 2026-11-21 01:00 UTC. */
const SHOWN = '2026-11-21T01:00:00Z';

/** A site's notice and one of its times, both from the cached site list, as every screen reads it. */
function SiteScreen({ siteId, setRefusal }: { siteId: string; setRefusal?: string }) {
  const site = useSites().data?.sites.find((s) => s.siteId === siteId);
  if (!site) return null;
  return (
    <>
      <SiteClockNotice site={site} setRefusal={setRefusal} />
      <output>{formatInZoneWithUtc(SHOWN, site.timeZone)}</output>
    </>
  );
}

function renderSite(site: Site, setRefusal?: string) {
  const bff = fakeSitesBff({ sites: [site], nowIso: NOW, operatorName: 'Dana Admin' });
  const queryClient = createTestQueryClient();
  queryClient.setQueryData(siteKeys.list(), { sites: [site] });
  renderWithProviders(
    <>
      <SiteScreen siteId={site.siteId} setRefusal={setRefusal} />
      <ToastRegion />
    </>,
    { queryClient },
  );
  return bff;
}

const shownTime = () => document.querySelector('output')?.textContent;
const optionNames = (section: HTMLElement) =>
  within(section)
    .getAllByRole('option')
    .map((option) => option.querySelector('[slot="label"]')?.textContent?.replace('✓', ''));

/**
 * Renders `site`'s notice and presses its button named `openerName`, as an admin does: the user,
 * the BFF's recorded requests, the button, and the time zone dialog named `dialogName` it opened.
 */
async function openZoneDialog(site: Site, openerName: string, dialogName: string) {
  const user = userEvent.setup();
  const { requests } = renderSite(site);
  const opener = screen.getByRole('button', { name: openerName });
  await user.click(opener);
  const dialog = await screen.findByRole('dialog', { name: dialogName });
  return { user, requests, opener, dialog };
}

describe('the site clock notice', () => {
  it("warns of the vendor's fixed offset in operator words, with the way to set the zone", () => {
    renderSite(adelaideDepot());
    expect(screen.getByText(/Times for Adelaide Depot/).textContent).toBe(
      '⚠ Times for Adelaide Depot are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
    );
    expect(screen.getByRole('button', { name: "Set the site's time zone" })).toBeTruthy();
    expect(shownTime()).toBe('2026-11-21 10:30 (UTC+09:30), UTC 2026-11-21 01:00');
  });

  it('says quietly where an inferred zone came from, with a way to change it', () => {
    renderSite(harbourPlant());
    expect(screen.getByText(/Times for Harbour plant/).textContent).toBe(
      'Times for Harbour plant are on Europe/Berlin, worked out from Germany and UTC+1:00.',
    );
    expect(screen.getByRole('button', { name: 'Change the time zone' })).toBeTruthy();
  });

  it('folds who set a zone, and when, under the line', async () => {
    const user = userEvent.setup();
    renderSite(brisbaneYard());
    expect(screen.getByText(/Times for Brisbane Yard/).textContent).toBe(
      'Times for Brisbane Yard are on Australia/Brisbane.',
    );
    await user.click(screen.getByText('Who set it'));
    expect(screen.getByText(/^Set by/).textContent).toBe(
      'Set by Dana Admin on 2026-11-20 13:30 (Australia/Brisbane), UTC 2026-11-20 03:30.',
    );
  });

  it('tells a viewer or dispatcher who can set the zone instead of offering it', () => {
    renderSite(adelaideDepot(), 'Only an administrator can set a site’s time zone.');
    expect(screen.queryByRole('button', { name: "Set the site's time zone" })).toBeNull();
    expect(screen.getByText('Only an administrator can set a site’s time zone.')).toBeTruthy();
  });
});

// The dialog lists every zone of the world (about 300 options), which happy-dom renders slowly on
// a loaded machine: these tests get twice the project's 15 s.
describe('setting a site’s time zone', { timeout: 30_000 }, () => {
  it('lists the zones that fit first, finds one by keyboard, previews the change, saves it and every screen of the site follows', async () => {
    const { user, requests, opener, dialog } = await openZoneDialog(
      adelaideDepot(),
      "Set the site's time zone",
      'Time zone of Adelaide Depot',
    );

    const search = within(dialog).getByRole('searchbox', { name: 'Find a time zone' });
    await waitFor(() => expect(document.activeElement).toBe(search));
    const [fitting, all] = within(dialog).getAllByRole('group');
    expect(fitting?.getAttribute('aria-label') ?? fitting?.textContent).toMatch(
      /Fit Australia and UTC\+9:30/,
    );
    expect(optionNames(fitting as HTMLElement)).toEqual([
      'Australia/Adelaide',
      'Australia/Broken_Hill',
      'Australia/Darwin',
    ]);
    expect(all?.querySelector('[data-key="Europe/Berlin"]')).toBeTruthy();
    expect(all?.querySelector('[data-key="Australia/Adelaide"]')).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Save time zone' })).toHaveProperty(
      'disabled',
      true,
    );

    await user.click(search);
    await user.paste('adelaide');
    await waitFor(() =>
      expect(
        within(dialog)
          .getAllByRole('option')
          .map((o) => o.textContent),
      ).toEqual(['Australia/AdelaideAustralia · UTC+10:30 or UTC+09:30']),
    );
    await user.keyboard('{ArrowDown}{Enter}');
    await waitFor(() =>
      expect(within(dialog).getByRole('option', { selected: true }).textContent).toContain(
        'Australia/Adelaide',
      ),
    );
    expect(within(dialog).getByRole('region', { name: 'What changes' }).textContent).toContain(
      '14:00 on the fixed clock is 15:00 in Australia/Adelaide in summer (UTC+10:30, daylight saving time) and 14:00 in winter (UTC+09:30).',
    );

    await user.click(within(dialog).getByRole('button', { name: 'Save time zone' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const put = requests.find((r) => r.method === 'PUT');
    expect(put?.path).toBe('/api/sites/PLANT-AU-002/time-zone');
    expect(put?.body).toEqual({ timeZone: 'Australia/Adelaide' });

    // The answered site is the cached one at once: its times and its notice follow.
    expect(shownTime()).toBe('2026-11-21 11:30 (Australia/Adelaide), UTC 2026-11-21 01:00');
    expect(document.querySelector('.site-clock-text')?.textContent).toBe(
      'Times for Adelaide Depot are on Australia/Adelaide.',
    );
    // Focus is back on the notice, whose button is the same element.
    await waitFor(() => expect(document.activeElement).toBe(opener));
    expect(opener.textContent).toBe('Change the time zone');
    const toast = await screen.findByText('Adelaide Depot: times now on Australia/Adelaide');
    expect(toast.closest('[role="alertdialog"], [role="alert"]')?.textContent).toContain(
      'They were on the fixed UTC+09:30 clock.',
    );
  });

  it("warns of a zone that never has the vendor's offset before it is saved", async () => {
    const user = userEvent.setup();
    renderSite(adelaideDepot());
    await user.click(screen.getByRole('button', { name: "Set the site's time zone" }));
    const dialog = await screen.findByRole('dialog', { name: 'Time zone of Adelaide Depot' });
    await user.click(within(dialog).getByRole('searchbox'));
    await user.paste('perth');
    await user.keyboard('{ArrowDown}{Enter}');
    const preview = within(dialog).getByRole('region', { name: 'What changes' });
    await waitFor(() =>
      expect(preview.textContent).toContain(
        '14:00 on the fixed clock is 12:30 in Australia/Perth all year (UTC+08:00).',
      ),
    );
    expect(preview.textContent).toContain(
      "Australia/Perth is never UTC+9:30, the offset the vendor gives for the site: check that it is the site's zone.",
    );
  });

  it("goes back to the vendor's offset for a zone set earlier", async () => {
    const { user, requests, opener, dialog } = await openZoneDialog(
      brisbaneYard(),
      'Change the time zone',
      'Time zone of Brisbane Yard',
    );
    // AU with UTC+10:00 is Sydney's or Brisbane's: no zone is worked out from it.
    expect(dialog.textContent).toContain(
      "“Use the vendor's offset again” shows the site on the fixed UTC+10:00 clock.",
    );
    await user.click(within(dialog).getByRole('button', { name: "Use the vendor's offset again" }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requests.find((r) => r.method === 'DELETE')?.path).toBe(
      '/api/sites/PLANT-AU-003/time-zone',
    );
    expect(document.querySelector('.site-clock-text')?.textContent).toContain(
      'are on a fixed UTC+10:00 clock',
    );
    expect(shownTime()).toBe('2026-11-21 11:00 (UTC+10:00), UTC 2026-11-21 01:00');
    expect(
      await screen.findByText("Brisbane Yard: the vendor's offset is used again"),
    ).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });
});
