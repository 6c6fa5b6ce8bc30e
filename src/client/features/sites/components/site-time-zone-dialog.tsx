import { useMemo, useState } from 'react';
import {
  Autocomplete,
  Collection,
  Header,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  ListBoxSection,
  SearchField,
  Text,
  type Selection,
} from 'react-aria-components';
import type { Site } from '#domain/device.ts';
import { Dialog } from '#client/components/dialog.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { showToast } from '#client/components/toast.tsx';
import { countryName, siteClockWords, vendorOffsetWords } from '#client/lib/site-clock-words.ts';
import { zoneLabel } from '#client/lib/time.ts';
import { useSetSiteTimeZone } from '../api/set-site-time-zone.ts';
import {
  fittingZones,
  showsVendorOffset,
  vendorClockOf,
  zoneCatalog,
  zoneChangePreview,
  zoneMatches,
  type ZoneChoice,
} from '../lib/zone-catalog.ts';
import './site-clock.css';

interface SiteTimeZoneDialogProps {
  site: Site;
  /** Closes the dialog; focus goes back to what opened it (the site's clock notice). */
  onClose: () => void;
}

/** The clock the site is on, in a few words: `the fixed UTC+09:30 clock`, `Europe/Berlin`. */
function clockName(site: Pick<Site, 'timeZone' | 'clock'>): string {
  return site.clock.source === 'offset'
    ? `the fixed ${zoneLabel(site.timeZone)} clock`
    : zoneLabel(site.timeZone);
}

function ZoneItem({ choice }: { choice: ZoneChoice }) {
  const detail = [choice.countries.slice(0, 3).join(', '), choice.offsets.join(' or ')]
    .filter((part) => part !== '')
    .join(' · ');
  return (
    <ListBoxItem id={choice.name} textValue={choice.name} className="listbox-item zone-item">
      {({ isSelected }) => (
        <>
          <Text slot="label">
            <span aria-hidden="true" className="zone-item-check">
              {isSelected ? '✓' : ''}
            </span>
            {choice.name}
          </Text>
          <Text slot="description" className="listbox-item-detail">
            {detail}
          </Text>
        </>
      )}
    </ListBoxItem>
  );
}

/**
 * Sets a site's IANA zone (docs/decisions/006, section 6), for an administrator: searchable zones,
 * fitting ones first, a preview of what changes, Save or back to the vendor's offset. The cached
 * site becomes the BFF's answer, so every screen uses the new clock at once.
 */
export function SiteTimeZoneDialog({ site, onClose }: SiteTimeZoneDialogProps) {
  const [openedAtMs] = useState(() => Date.now());
  const year = new Date(openedAtMs).getUTCFullYear();
  const catalog = zoneCatalog(year);
  const fits = useMemo(() => fittingZones(site, year), [site, year]);
  const [fitting, others] = useMemo(() => {
    const byName = new Map(catalog.map((choice) => [choice.name, choice]));
    const first = fits.flatMap((name) => {
      const choice = byName.get(name);
      return choice ? [choice] : [];
    });
    const firstNames = new Set(first.map((choice) => choice.name));
    return [first, catalog.filter((choice) => !firstNames.has(choice.name))];
  }, [catalog, fits]);
  const searchTextOf = useMemo(() => new Map(catalog.map((c) => [c.name, c])), [catalog]);

  const current = site.clock.source === 'offset' ? undefined : site.timeZone;
  const [chosen, setChosen] = useState<string | undefined>(current);
  const change = useSetSiteTimeZone();
  const { vendorOffset } = site.clock;
  const fitHeading = [
    site.countryCode ? countryName(site.countryCode) : undefined,
    vendorOffset ? vendorOffsetWords(vendorOffset) : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' and ');
  const afterClear = useMemo(() => vendorClockOf(site, openedAtMs), [site, openedAtMs]);

  const save = (timeZone: string | null) => {
    change.reset();
    change.mutate(
      { siteId: site.siteId, timeZone },
      {
        onSuccess: (saved) => {
          showToast(
            timeZone === null
              ? {
                  title: `${saved.name}: the vendor's offset is used again`,
                  description: `${siteClockWords(saved).text} Every page of the site uses this clock now.`,
                  tone: 'success',
                }
              : {
                  title: `${saved.name}: times now on ${zoneLabel(saved.timeZone)}`,
                  description: `They were on ${clockName(site)}. Every page of the site uses the new zone now.`,
                  tone: 'success',
                },
          );
          onClose();
        },
      },
    );
  };

  const unchanged = chosen === undefined || chosen === current;
  return (
    <Dialog
      title={`Time zone of ${site.name}`}
      onClose={onClose}
      size="medium"
      className="site-time-zone-dialog"
      actions={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          {site.clock.source === 'set' && vendorOffset ? (
            <button type="button" disabled={change.isPending} onClick={() => save(null)}>
              Use the vendor&apos;s offset again
            </button>
          ) : null}
          <button
            type="button"
            className="primary"
            disabled={unchanged || change.isPending}
            onClick={() => {
              if (chosen !== undefined) save(chosen);
            }}
          >
            {change.isPending ? 'Saving…' : 'Save time zone'}
          </button>
        </>
      }
    >
      <p>
        {siteClockWords(site).text}{' '}
        {site.clock.source === 'offset'
          ? 'Choose the zone the site keeps, so that its times follow its daylight saving time if it has one.'
          : vendorOffset
            ? `The vendor gives the site's time zone as ${vendorOffsetWords(vendorOffset)}, an offset that cannot follow daylight saving time.`
            : null}
      </p>
      <Autocomplete
        filter={(textValue, inputValue) => {
          const choice = searchTextOf.get(textValue);
          return choice ? zoneMatches(choice, inputValue) : false;
        }}
      >
        <SearchField className="field zone-search" autoFocus>
          <Label>Find a time zone</Label>
          <Input />
          <Text slot="description" className="field-hint">
            By city, country or offset, such as Adelaide, Germany or +9:30. Arrow keys move through
            the list, Enter picks.
          </Text>
        </SearchField>
        <ListBox
          aria-label="Time zones"
          className="listbox zone-list"
          selectionMode="single"
          disallowEmptySelection
          selectedKeys={chosen ? [chosen] : []}
          onSelectionChange={(keys: Selection) => {
            if (keys === 'all') return;
            const [key] = keys;
            if (key !== undefined) {
              setChosen(String(key));
              change.reset();
            }
          }}
          renderEmptyState={() => <div className="listbox-empty">No time zone matches.</div>}
        >
          {fitting.length > 0 ? (
            <ListBoxSection id="fitting" className="zone-section">
              <Header className="zone-section-header">Fit {fitHeading || 'the site'}</Header>
              <Collection items={fitting}>{(choice) => <ZoneItem choice={choice} />}</Collection>
            </ListBoxSection>
          ) : null}
          <ListBoxSection id="all" className="zone-section">
            <Header className="zone-section-header">All time zones</Header>
            <Collection items={others}>{(choice) => <ZoneItem choice={choice} />}</Collection>
          </ListBoxSection>
        </ListBox>
      </Autocomplete>
      <section className="zone-preview" aria-labelledby="zone-preview-heading" aria-live="polite">
        <h3 id="zone-preview-heading">What changes</h3>
        {chosen === undefined ? (
          <p className="field-hint">Pick a time zone to see how the site&apos;s times change.</p>
        ) : unchanged ? (
          <p className="field-hint">{chosen} is the site&apos;s time zone now.</p>
        ) : (
          <>
            <p>{zoneChangePreview(site.timeZone, chosen, year)}</p>
            {vendorOffset && !showsVendorOffset(chosen, vendorOffset, year) ? (
              <p className="notice notice-warning">
                {chosen} is never {vendorOffsetWords(vendorOffset)}, the offset the vendor gives for
                the site: check that it is the site&apos;s zone.
              </p>
            ) : null}
            <p className="field-hint">
              Commands keep their instants: only the clock their times are shown on changes.
            </p>
          </>
        )}
        {site.clock.source === 'set' && vendorOffset ? (
          <p className="field-hint">
            &ldquo;Use the vendor&apos;s offset again&rdquo; shows the site on{' '}
            {clockName(afterClear)}
            {afterClear.clock.source === 'inferred'
              ? ', worked out from its country and the vendor’s offset'
              : ''}
            .
          </p>
        ) : null}
      </section>
      {change.isError ? (
        <ErrorAlert error={change.error} what="The site's time zone was not changed." focusOnShow />
      ) : null}
    </Dialog>
  );
}
