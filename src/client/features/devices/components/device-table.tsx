import { useMemo, useState } from 'react';
import { useFilter } from 'react-aria-components';
import { Link } from 'react-router';
import type { Device, Site } from '#domain/device.ts';
import { ComboBox } from '#client/components/combo-box.tsx';
import { deviceHistoryPath } from '#client/lib/device-paths.ts';
import { ConnectionState } from './connection-state.tsx';
import { ColumnHeads } from '#client/components/column-heads.tsx';

/** A site with more devices than this gets a filter above its table. */
export const DEVICE_FILTER_FROM = 8;

const deviceDetail = (device: Device) => `${device.name} · ${device.model}`;

/** The devices of one site, each linking to its page; a long list gets a filter and an announced count. */
export function DeviceTable({ site }: { site: Site }) {
  const [filter, setFilter] = useState('');
  const { contains } = useFilter({ sensitivity: 'base' });
  const total = site.devices.length;
  const shown = useMemo(
    () =>
      filter.trim() === ''
        ? site.devices
        : site.devices.filter(
            (device) =>
              contains(device.deviceId, filter.trim()) ||
              contains(deviceDetail(device), filter.trim()),
          ),
    [site.devices, filter, contains],
  );
  const items = useMemo(
    () =>
      site.devices.map((device) => ({
        id: device.deviceId,
        label: device.deviceId,
        detail: deviceDetail(device),
      })),
    [site.devices],
  );

  if (total === 0) return <p className="empty-state">This site reports no devices.</p>;
  const filtered = shown.length !== total;
  return (
    <div className="stack">
      {total > DEVICE_FILTER_FROM ? (
        <div className="device-filter">
          <ComboBox
            label="Filter devices"
            items={items}
            inputValue={filter}
            onInputChange={setFilter}
            description="By device ID, name or model"
          />
          <p role="status" className="device-count">
            {filtered ? `Showing ${shown.length} of ${total} devices` : `All ${total} devices`}
          </p>
        </div>
      ) : null}
      {shown.length === 0 ? (
        <div className="empty-state">
          <p>
            No device of {site.name} matches “{filter.trim()}”.
          </p>
          <button type="button" className="small" onClick={() => setFilter('')}>
            Clear the filter
          </button>
        </div>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">
              Devices of {site.name}
              {filtered ? `, ${shown.length} of ${total} shown` : ''}
            </caption>
            <ColumnHeads columns={['Device ID', 'Name', 'Model', 'Connection', 'History']} />
            <tbody>
              {shown.map((device) => (
                <tr key={device.deviceId}>
                  <th scope="row">
                    <Link
                      to={`/sites/${encodeURIComponent(site.siteId)}/devices/${encodeURIComponent(device.deviceId)}`}
                    >
                      {device.deviceId}
                    </Link>
                  </th>
                  <td>{device.name}</td>
                  <td>{device.model}</td>
                  <td>
                    <ConnectionState online={device.online} faulted={device.faulted} />
                  </td>
                  <td>
                    <Link
                      to={deviceHistoryPath(site.siteId, device.deviceId)}
                      aria-label={`Command history of ${device.deviceId}`}
                    >
                      History
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
