import type { Device, Site } from '#domain/device.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';
import { zoneLabel } from '#client/lib/time.ts';
import { CapabilityList } from './capability-list.tsx';
import { ConnectionState } from './connection-state.tsx';

/** Facts and capability ranges of a device; a faulted one says what that means for a command. */
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
            <ConnectionState online={device.online} faulted={device.faulted} />
          </dd>
        </div>
        <div>
          <dt>Time zone</dt>
          <dd>{zoneLabel(site.timeZone)}</dd>
        </div>
      </dl>
      {device.faulted ? (
        <p className="notice notice-warning">
          <strong>The vendor reports a fault on this device.</strong> A command sent to it may end
          cancelled: &ldquo;{CANCELLATION_REASON_WORDS.deviceFault}&rdquo;. Check the device before
          scheduling.
        </p>
      ) : null}
      <h2>Capability ranges</h2>
      <CapabilityList capabilities={device.capabilities} />
    </div>
  );
}
