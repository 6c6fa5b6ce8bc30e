import type { Site } from '../../../domain/device.ts';
import type { CheckedPlanRow } from '../../features/fleet/components/fleet-plan-upload.tsx';
import { ghostId, ghostsByDevice, type GhostWindow } from '../../features/timeline/lib/ghosts.ts';

/**
 * A checked dispatch plan as the timeline's ghost windows: each row whose window could be read,
 * named by its line, with its power control when sendable and its reasons when refused (a row
 * whose times could not be read has no place on the timeline; the table names it). Also the
 * bound sites cut down to the plan's devices, and the earliest start, for the first view.
 */
export function planGhosts(rows: readonly CheckedPlanRow[], sites: readonly Site[]) {
  const ghosts = rows.flatMap((row) =>
    row.window
      ? [
          {
            deviceId: row.deviceId,
            id: ghostId(`line-${row.line}`),
            ...row.window,
            name: `Plan line ${row.line}`,
            ...(row.command ? { powerControl: row.command.powerControl } : {}),
            ...(row.command ? {} : { refusal: row.reasons?.join('; ') ?? 'refused' }),
          } satisfies GhostWindow & { deviceId: string },
        ]
      : [],
  );
  const byDevice = ghostsByDevice(ghosts);
  const planSites = sites.flatMap((site) => {
    const devices = site.devices.filter((device) => byDevice.has(device.deviceId));
    return devices.length > 0 ? [{ ...site, devices }] : [];
  });
  const firstStartMs = ghosts.reduce((min, ghost) => Math.min(min, ghost.startMs), Infinity);
  return { byDevice, sites: planSites, firstStartMs };
}
