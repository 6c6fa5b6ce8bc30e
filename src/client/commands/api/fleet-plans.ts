import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  FleetJobSchema,
  FleetPlanCheckSchema,
  type FleetJob,
  type FleetPlanCheck,
  type FleetPlanRequest,
} from '#domain/fleet-job.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { commandKeys } from './command-keys.ts';
import { createIdempotencyKey } from './fleet-jobs.ts';

/**
 * `POST /api/fleet-plans/check` (docs/fleet-dispatch.md, Dispatch plans): the rows the server would
 * send and those it refuses. Nothing is made or sent.
 */
export function checkFleetPlan(
  rows: FleetPlanRequest['rows'],
  signal?: AbortSignal,
): Promise<FleetPlanCheck> {
  return apiRequest('/fleet-plans/check', FleetPlanCheckSchema, {
    method: 'POST',
    body: { rows },
    signal,
  });
}

/** `POST /api/fleet-plans`: the kept rows as one job (202); `Idempotency-Key` as for a fleet job. */
export function createFleetPlanJob(request: FleetPlanRequest, intent: string): Promise<FleetJob> {
  return apiRequest('/fleet-plans', FleetJobSchema, {
    method: 'POST',
    body: request,
    idempotencyKey: createIdempotencyKey('plan', intent, request),
  });
}

export const useCheckFleetPlan = () =>
  useMutation({ mutationFn: (rows: FleetPlanRequest['rows']) => checkFleetPlan(rows) });

/** Sends a plan's kept rows as a job; the job list and the ledger are read again. */
export function useCreateFleetPlanJob(intent: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: FleetPlanRequest) => createFleetPlanJob(request, intent),
    onSuccess: (job) => queryClient.setQueryData(commandKeys.fleetJob(job.jobId), job),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: commandKeys.fleetJobs() }),
        queryClient.invalidateQueries({ queryKey: commandKeys.ledger() }),
      ]),
  });
}
