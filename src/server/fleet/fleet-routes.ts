import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  FleetJobActionSchema,
  FleetJobListSchema,
  FleetJobRequestSchema,
  FleetJobSchema,
  FleetPlanCheckRequestSchema,
  FleetPlanCheckSchema,
  FleetPlanRequestSchema,
  type FleetJobList,
  type FleetPlanCheck,
} from '#domain/fleet-job.ts';
import { IdempotencyKeyHeadersSchema, readIdempotencyKey } from '../http/idempotency-key.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { COMMON_PROBLEMS, declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import { requireSession, sessionOf } from '../session/session-hooks.ts';
import { tokenUse } from '../http/token-use.ts';
import type { Sessions } from '../session/sessions.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { eventVerdictsOf } from '#domain/fleet-power.ts';
import { EventVerdictsAnswerSchema } from '#domain/verdict-answer.ts';
import { accountOf } from '#domain/account.ts';
import type { VerdictStore } from '../telemetry/verdict-store.ts';
import type { FleetJobs } from './fleet-jobs.ts';

/** A fleet job's body may list every device of the bound sites: 20,000 IDs fit in 1 MiB. */
const FLEET_JOB_BODY_LIMIT_BYTES = 1024 * 1024;

/** A plan's rows: 20,000 rows of about 200 bytes fit in 8 MiB. */
const FLEET_PLAN_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

const JobParamsSchema = z.strictObject({ jobId: z.uuid() });
/** `?refresh=statuses`: bring the outcomes up to date from the read model first (the job page's poll). */
const JobQuerySchema = z.strictObject({ refresh: z.literal('statuses').optional() });
const ActionParamsSchema = z.strictObject({ jobId: z.uuid(), action: FleetJobActionSchema });

const NOT_FOUND = problemResponse('No such job among your jobs (`fleet_job_not_found`).');
const UNAVAILABLE = problemResponse(
  'The job queue is still starting (`fleet_jobs_starting`, with `Retry-After`); or the circuit is open, or the token endpoint down.',
);
const REFUSED = problemResponse(
  'Nothing was made: the selection or plan names what cannot be sent (`fleet_selection_refused`), or the Idempotency-Key was used for another job (`idempotency_key_reused`).',
);
/** What a route that makes a job answers, from a selection or from a plan. */
const JOB_MADE = {
  202: FleetJobSchema.describe('The job, made (or made before under this Idempotency-Key)'),
  422: REFUSED,
  ...COMMON_PROBLEMS,
  503: UNAVAILABLE,
};

/**
 * `/api/fleet-jobs` (docs/fleet-dispatch.md, BFF surface): create a job (202 with the job), list
 * the client's jobs, read one with its batches and devices, and pause, resume or cancel it; and
 * `/api/fleet-plans`, a dispatch plan checked or sent as a job. CSRF and Origin are checked before
 * these run, as for every state-changing call; the session next (`preValidation`); then the body,
 * path and query, parsed with the domain schemas the routes declare.
 */
export async function fleetRoutes(
  app: FastifyInstance,
  options: { sessions: Sessions; upstream: UpstreamApi; jobs: FleetJobs; verdicts: VerdictStore },
): Promise<void> {
  const { sessions, upstream, jobs, verdicts } = options;
  const routes = declaredRoutes(app);
  const tags = ['fleet jobs'];

  routes.post(
    '/api/fleet-jobs',
    {
      bodyLimit: FLEET_JOB_BODY_LIMIT_BYTES,
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags,
        summary: 'Send one device command to many devices in paced batches (a fleet job)',
        body: FleetJobRequestSchema,
        response: JOB_MADE,
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const idempotencyKey = readIdempotencyKey(request.headers);
      const job = await jobs.create(
        session,
        () => upstream.sites(session),
        request.body,
        idempotencyKey,
      );
      return reply.code(202).send(job);
    },
  );
  routes.post(
    '/api/fleet-plans',
    {
      bodyLimit: FLEET_PLAN_BODY_LIMIT_BYTES,
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags,
        summary: "Send a dispatch plan's rows, checked again, as a fleet job",
        body: FleetPlanRequestSchema,
        response: JOB_MADE,
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const job = await jobs.createFromPlan(
        session,
        () => upstream.sites(session),
        (deviceId, query) => upstream.history(session, deviceId, query),
        request.body,
        readIdempotencyKey(request.headers),
      );
      return reply.code(202).send(job);
    },
  );
  refuseOtherMethods(app, '/api/fleet-plans', new Set(['POST']));
  // The preview's check: the same rule as the send, nothing made or sent (POST for the body).
  routes.post(
    '/api/fleet-plans/check',
    {
      bodyLimit: FLEET_PLAN_BODY_LIMIT_BYTES,
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        tags,
        summary: "Check a dispatch plan's rows: nothing is made or sent",
        body: FleetPlanCheckRequestSchema,
        response: {
          200: FleetPlanCheckSchema,
          ...COMMON_PROBLEMS,
          503: UNAVAILABLE,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const check: FleetPlanCheck = await jobs.checkPlanRows(
        () => upstream.sites(session),
        (deviceId, query) => upstream.history(session, deviceId, query),
        request.body.rows,
      );
      return check;
    },
  );
  refuseOtherMethods(app, '/api/fleet-plans/check', new Set(['POST']));
  routes.get(
    '/api/fleet-jobs',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions),
      schema: {
        tags,
        summary: "The account's fleet jobs, newest first, without their batches",
        response: { 200: FleetJobListSchema, ...COMMON_PROBLEMS, 503: UNAVAILABLE },
      },
    },
    async (request) => ({ jobs: await jobs.list(sessionOf(request)) }) satisfies FleetJobList,
  );
  routes.get(
    '/api/fleet-jobs/:jobId',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions),
      schema: {
        tags,
        summary: 'A fleet job with its batches and their devices',
        params: JobParamsSchema,
        querystring: JobQuerySchema,
        response: { 200: FleetJobSchema, 404: NOT_FOUND, ...COMMON_PROBLEMS, 503: UNAVAILABLE },
      },
    },
    async (request) => {
      const { jobId } = request.params;
      const { refresh } = request.query;
      return jobs.read(sessionOf(request), jobId, refresh === 'statuses');
    },
  );
  routes.get(
    '/api/fleet-jobs/:jobId/verdicts',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions),
      schema: {
        tags,
        summary: "The job's commanded against delivered power and each device's verdict",
        description:
          "From the verdicts the BFF keeps of its batches' device commands (docs/verification.md): answered from the database, no vendor call.",
        params: JobParamsSchema,
        response: {
          200: EventVerdictsAnswerSchema,
          404: NOT_FOUND,
          ...COMMON_PROBLEMS,
          503: UNAVAILABLE,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const batchCommandIds = await jobs.batchCommandIdsOf(session, request.params.jobId);
      const { knownCommands, records } = await verdicts.verdictsOfBatches(
        accountOf(session),
        batchCommandIds,
      );
      return eventVerdictsOf(records, knownCommands);
    },
  );
  routes.post(
    '/api/fleet-jobs/:jobId/:action',
    {
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        tags,
        summary: 'Pause, resume or cancel a fleet job',
        params: ActionParamsSchema,
        response: {
          200: FleetJobSchema,
          404: NOT_FOUND,
          409: problemResponse("The job's state does not allow it (`fleet_job_state`)."),
          ...COMMON_PROBLEMS,
          503: UNAVAILABLE,
        },
      },
    },
    async (request) => {
      const { jobId, action } = request.params;
      return jobs.act(sessionOf(request), jobId, action);
    },
  );
  refuseOtherMethods(app, '/api/fleet-jobs', new Set(['GET', 'HEAD', 'POST']));
  refuseOtherMethods(app, '/api/fleet-jobs/:jobId', new Set(['GET', 'HEAD']));
  refuseOtherMethods(app, '/api/fleet-jobs/:jobId/:action', new Set(['POST']));
}
