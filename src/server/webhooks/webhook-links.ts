/**
 * The product API paths a webhook payload links to (`data.links`), so a receiver reads the whole
 * state with an API token. One home for them: every event source builds its links here.
 */
const path = encodeURIComponent;

export const webhookLinks = {
  command: (deviceId: string, commandId: string) =>
    `/api/devices/${path(deviceId)}/commands/${path(commandId)}`,
  deviceCommands: (deviceId: string) => `/api/devices/${path(deviceId)}/commands`,
  deviceVerdicts: (deviceId: string) => `/api/devices/${path(deviceId)}/verdicts`,
  deviceChanges: (deviceId: string) => `/api/devices/${path(deviceId)}/changes`,
  batchVerdicts: (batchCommandId: string) => `/api/batches/${path(batchCommandId)}/verdicts`,
  change: (changeId: string) => `/api/changes/${path(changeId)}`,
  fleetJob: (jobId: string) => `/api/fleet-jobs/${path(jobId)}`,
  sites: () => '/api/sites',
  endpoint: (endpointId: string) => `/api/webhooks/${path(endpointId)}`,
};
