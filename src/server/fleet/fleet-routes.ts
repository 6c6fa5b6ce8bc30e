import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  FleetJobActionSchema,
  FleetJobRequestSchema,
  FleetPlanCheckRequestSchema,
  FleetPlanRequestSchema,
  type FleetPlanCheck,
} from '../../domain/fleet-job.ts';
import { readIdempotencyKey } from '../http/idempotency-key.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { parseInput } from '../http/parse.ts';
import { ProblemError } from '../http/problem.ts';
import type { Sessions } from '../session/sessions.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { FleetJobs } from './fleet-jobs.ts';

/** A fleet job's body may list every device of the bound sites: 20,000 IDs fit in 1 MiB. */
const FLEET_JOB_BODY_LIMIT_BYTES = 1024 * 1024;

/** A plan's rows: 20,000 rows of about 200 bytes fit in 8 MiB. */
const FLEET_PLAN_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

const JobParamsSchema = z.strictObject({ jobId: z.uuid() });
/** `?refresh=statuses`: bring the outcomes up to date from the read model first (the job page's poll). */
const JobQuerySchema = z.strictObject({ refresh: z.literal('statuses').optional() });
const ActionParamsSchema = z.strictObject({ jobId: z.uuid(), action: FleetJobActionSchema });

/**
 * `/api/fleet-jobs` (docs/fleet-dispatch.md, BFF surface): create a job (202 with the job), list
 * the client's jobs, read one with its batches and devices, and pause, resume or cancel it. CSRF
 * and Origin are checked before these run, as for every state-changing call; the session next;
 * then the body or path, parsed with the domain schemas.
 */
export async function fleetRoutes(
  app: FastifyInstance,
  options: { sessions: Sessions; upstream: UpstreamApi; jobs: FleetJobs | undefined },
): Promise<void> {
  const { sessions, upstream, jobs } = options;
  const available = (): FleetJobs => {
    if (jobs) return jobs;
    throw new ProblemError(
      503,
      'fleet_jobs_unavailable',
      'This server runs without a database, so it cannot run fleet jobs. Send batches of up to 50 devices from the batch page instead.',
    );
  };

  app.post('/api/fleet-jobs', { bodyLimit: FLEET_JOB_BODY_LIMIT_BYTES }, async (request, reply) => {
    const session = await sessions.require(request, 'dispatch');
    const body = parseInput(FleetJobRequestSchema, request.body, 'body');
    const idempotencyKey = readIdempotencyKey(request.headers);
    const job = await available().create(
      session,
      () => upstream.sites(session),
      body,
      idempotencyKey,
    );
    return reply.code(202).send(job);
  });
  app.post(
    '/api/fleet-plans',
    { bodyLimit: FLEET_PLAN_BODY_LIMIT_BYTES },
    async (request, reply) => {
      const session = await sessions.require(request, 'dispatch');
      const body = parseInput(FleetPlanRequestSchema, request.body, 'body');
      const job = await available().createFromPlan(
        session,
        () => upstream.sites(session),
        (deviceId, query) => upstream.history(session, deviceId, query),
        body,
        readIdempotencyKey(request.headers),
      );
      return reply.code(202).send(job);
    },
  );
  refuseOtherMethods(app, '/api/fleet-plans', new Set(['POST']));
  // The preview's check: the same rule as the send, nothing made or sent (POST for the body).
  app.post(
    '/api/fleet-plans/check',
    { bodyLimit: FLEET_PLAN_BODY_LIMIT_BYTES },
    async (request) => {
      const session = await sessions.require(request, 'dispatch');
      const { rows } = parseInput(FleetPlanCheckRequestSchema, request.body, 'body');
      const check: FleetPlanCheck = await available().checkPlanRows(
        () => upstream.sites(session),
        (deviceId, query) => upstream.history(session, deviceId, query),
        rows,
      );
      return check;
    },
  );
  refuseOtherMethods(app, '/api/fleet-plans/check', new Set(['POST']));
  app.get('/api/fleet-jobs', async (request) => {
    const session = await sessions.require(request);
    return { jobs: await available().list(session) };
  });
  app.get('/api/fleet-jobs/:jobId', async (request) => {
    const session = await sessions.require(request);
    const { jobId } = parseInput(JobParamsSchema, request.params, 'path');
    const { refresh } = parseInput(JobQuerySchema, request.query, 'query');
    return available().read(session, jobId, refresh === 'statuses');
  });
  app.post('/api/fleet-jobs/:jobId/:action', async (request) => {
    const session = await sessions.require(request, 'dispatch');
    const { jobId, action } = parseInput(ActionParamsSchema, request.params, 'path');
    return available().act(session, jobId, action);
  });
  refuseOtherMethods(app, '/api/fleet-jobs', new Set(['GET', 'HEAD', 'POST']));
  refuseOtherMethods(app, '/api/fleet-jobs/:jobId', new Set(['GET', 'HEAD']));
  refuseOtherMethods(app, '/api/fleet-jobs/:jobId/:action', new Set(['POST']));
}
