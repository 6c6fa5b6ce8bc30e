import { useNavigate } from 'react-router';
import { CommandPalette, type PaletteGroup } from '../../components/command-palette.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';

/** The search across bound sites and devices (Ctrl/Cmd+K), over the cached site list; loaded on first opening. */
export function SiteSearch({ onClose }: { onClose: () => void }) {
  const sites = useSites();
  const navigate = useNavigate();
  const list = sites.data?.sites ?? [];
  const groups: PaletteGroup[] = [
    {
      id: 'sites',
      title: 'Sites',
      items: list.map((site) => ({
        id: `site ${site.siteId}`,
        label: site.name,
        detail: `${site.siteId} · ${site.devices.length} device${site.devices.length === 1 ? '' : 's'}`,
        textValue: `${site.name} ${site.siteId}`,
        onAction: () => void navigate(`/sites?${new URLSearchParams({ site: site.siteId })}`),
      })),
    },
    {
      id: 'devices',
      title: 'Devices',
      items: list.flatMap((site) =>
        site.devices.map((device) => ({
          id: `device ${site.siteId} ${device.deviceId}`,
          label: device.name,
          detail: `${device.deviceId} · ${site.name}`,
          textValue: `${device.name} ${device.deviceId} ${site.name} ${site.siteId}`,
          onAction: () =>
            void navigate(
              `/sites/${encodeURIComponent(site.siteId)}/devices/${encodeURIComponent(device.deviceId)}`,
            ),
        })),
      ),
    },
  ];
  const emptyText =
    sites.data === undefined
      ? sites.isError
        ? 'Could not load the bound sites. Close this and try again.'
        : 'Loading sites…'
      : list.length === 0
        ? 'No site is bound yet: bind one on the Sites page.'
        : 'No site or device matches.';
  return (
    <CommandPalette
      label="Search sites and devices"
      placeholder="Site or device name or ID"
      groups={groups}
      onClose={onClose}
      emptyText={emptyText}
    />
  );
}
