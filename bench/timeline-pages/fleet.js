/**
 * The same fleet for every timeline bench page: `devices` devices over 20 sites, each
 * with `windowsPerDevice` command windows packed into the 48 hours around now, so the default
 * view (now - 2 h, 24 h wide) shows about half of them. Deterministic: no randomness.
 */
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/**
 * The sites' zones, each worked out from its country and the vendor's standard offset, as the BFF
 * answers a site (docs/decisions/006, section 6).
 */
const ZONES = [
  { timeZone: 'Europe/Berlin', countryCode: 'DE', vendorOffset: '+01:00' },
  { timeZone: 'Europe/London', countryCode: 'GB', vendorOffset: '+00:00' },
  { timeZone: 'Europe/Madrid', countryCode: 'ES', vendorOffset: '+01:00' },
  { timeZone: 'Europe/Helsinki', countryCode: 'FI', vendorOffset: '+02:00' },
];

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** @returns {{ sites: object[], recordsByDevice: Map<string, object[]>, windows: number }} */
export function generateFleet(devices, windowsPerDevice, nowMs, siteCount = 20) {
  const perSite = Math.ceil(devices / siteCount);
  const spanStartMs = Math.floor((nowMs - 12 * HOUR_MS) / HOUR_MS) * HOUR_MS;
  const slotMs = (48 * HOUR_MS) / windowsPerDevice;
  const sites = [];
  const recordsByDevice = new Map();
  let windows = 0;
  for (let d = 0; d < devices; d++) {
    const s = Math.floor(d / perSite);
    if (!sites[s]) {
      const { timeZone, countryCode, vendorOffset } = ZONES[s % ZONES.length];
      sites[s] = {
        siteId: `PLANT-BENCH-${String(s + 1).padStart(2, '0')}`,
        name: `Bench plant ${s + 1}`,
        countryCode,
        timeZone,
        clock: { source: 'inferred', vendorOffset },
        devices: [],
      };
    }
    const deviceId = `BAT-BENCH-${String(d + 1).padStart(4, '0')}`;
    sites[s].devices.push({
      deviceId,
      name: `Battery ${d + 1}`,
      model: 'BENCH-1',
      capabilities: { targetBatteryPowerW: { min: -5000, max: 5000 } },
    });
    const records = [];
    for (let k = 0; k < windowsPerDevice; k++) {
      const offsetMs = (((d * 7919 + k * 104729) % 1000) / 1000) * slotMs * 0.3;
      const lengthMs = slotMs * (0.4 + (((d * 31 + k * 17) % 100) / 100) * 0.25);
      const startMs = Math.round((spanStartMs + k * slotMs + offsetMs) / MINUTE_MS) * MINUTE_MS;
      const endMs = Math.max(
        startMs + MINUTE_MS,
        Math.round((startMs + lengthMs) / MINUTE_MS) * MINUTE_MS,
      );
      const status = endMs <= nowMs ? 'completed' : startMs <= nowMs ? 'executing' : 'received';
      records.push({
        id: `cmd-${d + 1}-${k + 1}`,
        deviceId,
        powerControl: { targetBatteryPowerW: (((d + k) % 10) - 5) * 500 || 250 },
        startTime: iso(startMs),
        endTime: iso(endMs),
        status,
        receivedAt: iso(startMs - HOUR_MS),
        ...(status !== 'received' ? { startedAt: iso(startMs) } : {}),
        ...(status === 'completed' ? { completedAt: iso(endMs) } : {}),
      });
      windows++;
    }
    recordsByDevice.set(deviceId, records);
  }
  return { sites, recordsByDevice, windows };
}
