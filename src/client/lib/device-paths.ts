/** `/sites/{siteId}/devices/{deviceId}`: a device's page. */
export function devicePath(siteId: string, deviceId: string): string {
  return `/sites/${encodeURIComponent(siteId)}/devices/${encodeURIComponent(deviceId)}`;
}

/**
 * `/sites/{siteId}/devices/{deviceId}/history`: a device's command history, reached
 * from the device page, the sites page and the timeline; `search` carries a shared view state.
 */
export function deviceHistoryPath(siteId: string, deviceId: string, search = ''): string {
  const path = `${devicePath(siteId, deviceId)}/history`;
  return search ? `${path}?${search}` : path;
}
