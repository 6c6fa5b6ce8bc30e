import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  FleetJobListSchema,
  FleetJobSchema,
  isFinalJobState,
  type FleetJob,
  type FleetJobAction,
  type FleetJobRequest,
} from '#domain/fleet-job.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { refetchWhileFailing } from '../../lib/refetch-while-failing.ts';
import { commandKeys } from './command-keys.ts';

export const FLEET_JOB_POLL_MS = 2_000;

/** `GET /api/fleet-jobs` (docs/fleet-dispatch.md): the client's jobs, newest first. */
export function getFleetJobs(signal?: AbortSignal): Promise<FleetJob[]> {
  return apiRequest('/fleet-jobs', FleetJobListSchema, { signal }).then((list) => list.jobs);
}

/** `GET /api/fleet-jobs/{jobId}?refresh=statuses`: one job, outcomes refreshed from the read model (no upstream call). */
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

/** One job, polled every {@link FLEET_JOB_POLL_MS} while not final and shown; no upstream call. */
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
 * `POST /api/fleet-jobs`: 202 with the job, started. The `Idempotency-Key` comes from `intent` and
 * the request, so a retry or a second click is answered with the first job, never a second.
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

/** FNV-1a (32-bit), hex. Not `crypto.subtle`, which a page on plain http off localhost lacks. */
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

/** Creates a job (see {@link createFleetJob}); the job list and the ledger are read again. */
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
