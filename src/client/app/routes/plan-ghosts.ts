import type { Site } from '#domain/device.ts';
import type { CheckedPlanRow } from '../../features/fleet/components/fleet-plan-upload.tsx';
import { ghostId, ghostsByDevice, type GhostWindow } from '../../features/timeline/lib/ghosts.ts';

/** Narrowest first view of a plan, ms: a one-hour plan still shows the hours around it. */
const MIN_FIRST_VIEW_MS = 2 * 3_600_000;

/**
 * A checked plan as the timeline's ghost windows (rows with readable times), its sites cut down to
 * its devices, and the first view showing every row (at least 2 hours).
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
  const lastEndMs = ghosts.reduce((max, ghost) => Math.max(max, ghost.endMs), -Infinity);
  // Three quarters of the view follow the first start; a tenth more keeps the last end inside.
  const spanMs = Math.max(MIN_FIRST_VIEW_MS, ((lastEndMs - firstStartMs) / 0.75) * 1.1);
  return { byDevice, sites: planSites, firstView: { atMs: firstStartMs, spanMs } };
}
