import { Link } from 'react-router';
import type { Site } from '../../../../domain/device.ts';
import { deviceHistoryPath } from '../../../lib/device-paths.ts';
import { ConnectionState } from './connection-state.tsx';

/** The devices of one site; each device ID leads to its device page. */
export function DeviceTable({ site }: { site: Site }) {
  if (site.devices.length === 0)
    return <p className="empty-state">This site reports no devices.</p>;
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">Devices of {site.name}</caption>
        <thead>
          <tr>
            <th scope="col">Device ID</th>
            <th scope="col">Name</th>
            <th scope="col">Model</th>
            <th scope="col">Connection</th>
            <th scope="col">History</th>
          </tr>
        </thead>
        <tbody>
          {site.devices.map((device) => (
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
                <ConnectionState online={device.online} />
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
  );
}
