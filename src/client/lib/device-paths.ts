export function devicePath(siteId: string, deviceId: string): string {
  return `/sites/${encodeURIComponent(siteId)}/devices/${encodeURIComponent(deviceId)}`;
}

/** A device's command history; `search` carries a shared view state. */
export function deviceHistoryPath(siteId: string, deviceId: string, search = ''): string {
  const path = `${devicePath(siteId, deviceId)}/history`;
  return search ? `${path}?${search}` : path;
}
