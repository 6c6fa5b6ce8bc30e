import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  FleetJobListSchema,
  FleetJobSchema,
  isFinalJobState,
  type FleetJob,
  type FleetJobAction,
  type FleetJobRequest,
} from '../../../domain/fleet-job.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { refetchWhileFailing } from '../../lib/refetch-while-failing.ts';
import { commandKeys } from './command-keys.ts';

/** How often an open job page reads its job while the job still sends or cancels. */
export const FLEET_JOB_POLL_MS = 2_000;

/** `GET /api/fleet-jobs` (docs/fleet-dispatch.md): the client's jobs, newest first. */
export function getFleetJobs(signal?: AbortSignal): Promise<FleetJob[]> {
  return apiRequest('/fleet-jobs', FleetJobListSchema, { signal }).then((list) => list.jobs);
}

/**
 * `GET /api/fleet-jobs/{jobId}?refresh=statuses`: one job with its batches and each device's
 * outcome; the BFF first brings the devices' outcomes up to date from its read model (no upstream
 * call; src/server/fleet/fleet-outcomes.ts).
 */
export function getFleetJob(jobId: string, signal?: AbortSignal): Promise<FleetJob> {
  return apiRequest(`/fleet-jobs/${encodeURIComponent(jobId)}`, FleetJobSchema, {
    signal,
    query: { refresh: 'statuses' },
  });
}

export const fleetJobsQueryOptions = () =>
  queryOptions({
    queryKey: commandKeys.fleetJobs(),
    queryFn: ({ signal }) => getFleetJobs(signal),
    refetchInterval: refetchWhileFailing(FLEET_JOB_POLL_MS * 5),
  });

/**
 * One job, read again every {@link FLEET_JOB_POLL_MS} while it is not final and the tab is
 * shown; a read costs no upstream call (the read model answers).
 */
export const fleetJobQueryOptions = (jobId: string) =>
  queryOptions({
    queryKey: commandKeys.fleetJob(jobId),
    queryFn: ({ signal }) => getFleetJob(jobId, signal),
    refetchInterval: (query) =>
      query.state.data && isFinalJobState(query.state.data.state) ? false : FLEET_JOB_POLL_MS,
  });

export const useFleetJobs = () => useQuery(fleetJobsQueryOptions());
export const useFleetJob = (jobId: string) => useQuery(fleetJobQueryOptions(jobId));

/**
 * `POST /api/fleet-jobs`: 202 with the new job, already started. `intent` names the form it comes
 * from: with the request it makes the `Idempotency-Key`, so a retry or a second click of the same
 * request on the same form is answered with the job the first made, never a second job.
 */
export function createFleetJob(request: FleetJobRequest, intent: string): Promise<FleetJob> {
  return apiRequest('/fleet-jobs', FleetJobSchema, {
    method: 'POST',
    body: request,
    idempotencyKey: createIdempotencyKey('fleet', intent, request),
  });
}

/** `<kind>-<intent>-<hash of the request>`: one key per request of one form. */
export function createIdempotencyKey(kind: string, intent: string, request: unknown): string {
  return `${kind}-${intent}-${fnv1a(JSON.stringify(request))}`;
}

/**
 * FNV-1a (32-bit) of `text`, hex: tells two requests of one form apart in their key. Not
 * `crypto.subtle`, which a page served over plain http on another host than localhost lacks.
 */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** A random ID for one form's intent (`crypto.getRandomValues` works on plain http too). */
export function newIntentId(): string {
  return [...crypto.getRandomValues(new Uint8Array(12))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
}

/**
 * Creates a job (see {@link createFleetJob}; `intent` is made once per form); the job list and
 * the ledger (which records its batches) are read again.
 */
export function useCreateFleetJob(intent: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: FleetJobRequest) => createFleetJob(request, intent),
    onSuccess: (job) => queryClient.setQueryData(commandKeys.fleetJob(job.jobId), job),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: commandKeys.fleetJobs() }),
        queryClient.invalidateQueries({ queryKey: commandKeys.ledger() }),
      ]),
  });
}

/** `POST /api/fleet-jobs/{jobId}/{pause|resume|cancel}`: the job as it stands after the action. */
export function actOnFleetJob(jobId: string, action: FleetJobAction): Promise<FleetJob> {
  return apiRequest(`/fleet-jobs/${encodeURIComponent(jobId)}/${action}`, FleetJobSchema, {
    method: 'POST',
    body: {},
  });
}

/** Pauses, resumes or cancels a job; its page shows the answer at once. */
export function useFleetJobAction(jobId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: FleetJobAction) => actOnFleetJob(jobId, action),
    onSuccess: (job) => queryClient.setQueryData(commandKeys.fleetJob(jobId), job),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: commandKeys.fleetJob(jobId) }),
        queryClient.invalidateQueries({ queryKey: commandKeys.ledger() }),
      ]),
  });
}
