import type { Device, Site } from '../../../../domain/device.ts';
import { CapabilityList } from './capability-list.tsx';
import { ConnectionState } from './connection-state.tsx';

/** Facts about a device and its capability ranges, under the page heading. */
export function DeviceSummary({ site, device }: { site: Site; device: Device }) {
  return (
    <div className="device-summary">
      <dl className="facts">
        <div>
          <dt>Site</dt>
          <dd>
            {site.name} <span className="secondary">{site.siteId}</span>
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd>{device.model}</dd>
        </div>
        <div>
          <dt>Connection</dt>
          <dd>
            <ConnectionState online={device.online} />
          </dd>
        </div>
        <div>
          <dt>Time zone</dt>
          <dd>{site.timeZone}</dd>
        </div>
      </dl>
      <h2>Capability ranges</h2>
      <CapabilityList capabilities={device.capabilities} />
    </div>
  );
}
