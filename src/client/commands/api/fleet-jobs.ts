import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
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

const FleetJobListSchema = z.object({ jobs: z.array(FleetJobSchema) });

/** `GET /api/fleet-jobs` (docs/fleet-dispatch.md): the client's jobs, newest first. */
export function getFleetJobs(signal?: AbortSignal): Promise<FleetJob[]> {
  return apiRequest('/fleet-jobs', FleetJobListSchema, { signal }).then((list) => list.jobs);
}

/**
 * `GET /api/fleet-jobs/{jobId}?refresh=statuses`: one job with its batches and each device's
 * outcome; the BFF first reads at most one status per sent batch from the upstream.
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
 * shown; each read costs at most one upstream status call per sent batch.
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

/** `POST /api/fleet-jobs`: 202 with the new job, already started. */
export function createFleetJob(request: FleetJobRequest): Promise<FleetJob> {
  return apiRequest('/fleet-jobs', FleetJobSchema, { method: 'POST', body: request });
}

/** Creates a job; the job list and the ledger (which records its batches) are read again. */
export function useCreateFleetJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createFleetJob,
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
