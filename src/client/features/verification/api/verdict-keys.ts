/**
 * Query keys of the verdicts (docs/verification.md), generic to specific: every verdict, one
 * device's; every event's (`events()`), one batch's, one fleet job's.
 */
export const verdictKeys = {
  all: ['verdicts'] as const,
  device: (deviceId: string) => [...verdictKeys.all, 'device', deviceId] as const,
  events: () => [...verdictKeys.all, 'event'] as const,
  batch: (batchCommandId: string) => [...verdictKeys.events(), 'batch', batchCommandId] as const,
  fleetJob: (jobId: string) => [...verdictKeys.events(), 'fleet-job', jobId] as const,
};
