import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { accountOf, actorName, actorOf, type Account } from '#domain/account.ts';
import {
  MAX_WEBHOOK_ENDPOINTS,
  PREVIOUS_SECRET_SIGNS_FOR_MS,
  WebhookDeliveryIdSchema,
  WebhookDeliveryPageSchema,
  WebhookDeliveryQuerySchema,
  WebhookDeliverySchema,
  WebhookEndpointChangeSchema,
  WebhookEndpointIdSchema,
  WebhookEndpointListSchema,
  WebhookEndpointMadeSchema,
  WebhookEndpointRequestSchema,
  WebhookEndpointSchema,
  WebhookRedeliveredSchema,
  WebhookRedeliverRangeSchema,
  type WebhookEndpoint,
} from '#domain/webhooks.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import { COMMON_PROBLEMS, declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import { tokenUse } from '../http/token-use.ts';
import type { SecretBox } from '../session/secret-box.ts';
import { requireSession, sessionOf } from '../session/session-hooks.ts';
import type { Session } from '../session/session-store.ts';
import type { Sessions } from '../session/sessions.ts';
import { isPrivateLiteral } from './webhook-address.ts';
import type { WebhookAudit } from './webhook-audit.ts';
import { randomId, type WebhookOutbox } from './webhook-outbox.ts';
import { webhookSealingKey, type WebhookQueue } from './webhook-queue.ts';
import { newWebhookSecret } from './webhook-signing.ts';
import { endpointOf, type EndpointRow, type WebhookStore } from './webhook-store.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';

const EndpointParamsSchema = z.strictObject({ endpointId: WebhookEndpointIdSchema });
const DeliveryParamsSchema = z.strictObject({
  endpointId: WebhookEndpointIdSchema,
  deliveryId: WebhookDeliveryIdSchema,
});
const NO_ENDPOINT = problemResponse('The account has no such webhook endpoint (`not_found`).');

/** Who made or changed something, in words: the person's name, else the client. */
function byName(session: Session): string {
  return actorName(session) ?? `client ${session.clientId}`;
}

export interface WebhookRoutesOptions {
  sessions: Sessions;
  store: WebhookStore;
  outbox: WebhookOutbox;
  queue: WebhookQueue;
  audit: WebhookAudit;
  box: SecretBox;
  /** The account's bound sites, which an endpoint's sites must be among. */
  sites: SiteDirectory;
  /** The webhooks' clock, epoch ms. */
  now: () => number;
  /** `WEBHOOKS_ALLOW_PRIVATE_ADDRESSES`: http:// and private addresses are taken. */
  allowPrivateAddresses: boolean;
}

/**
 * `/api/webhooks` (docs/automation.md, Webhooks): an administrator subscribes endpoints of other
 * systems to events, reads each endpoint's delivery log and redelivers one delivery or every
 * failed one of a range. An administrator's API token may list, read the log, send a test and
 * redeliver; making, changing, deleting an endpoint and rotating its secret take a person signed
 * in (a token could otherwise send the account's events to an address of its choosing). Every
 * change is audited (kind `webhook`).
 */
export async function webhookRoutes(
  app: FastifyInstance,
  options: WebhookRoutesOptions,
): Promise<void> {
  const { sessions, store, outbox, queue, audit, box, sites, now } = options;
  const routes = declaredRoutes(app);
  const tags = ['webhooks'];
  const administer = requireSession(sessions, 'administer');
  const tokenMayAdminister = tokenUse('administer', 'account');

  const listed = async (rows: EndpointRow[]): Promise<WebhookEndpoint[]> => {
    const last = await store.lastAttempts(rows.map((row) => row.id));
    const nowMs = now();
    return rows.map((row) => endpointOf(row, last.get(row.id), nowMs));
  };
  const endpointOr404 = async (account: Account, endpointId: string): Promise<EndpointRow> => {
    const row = await store.endpoint(account, endpointId);
    if (!row) throw new ProblemError(404, 'not_found', 'This account has no such webhook.');
    return row;
  };
  const checkAddress = (url: string): void => {
    if (options.allowPrivateAddresses) return;
    const target = new URL(url);
    if (target.protocol !== 'https:')
      throw new ProblemError(422, 'webhook_address_refused', 'The address must start https://.');
    // A name is checked where the connection is made, against every address it resolves to.
    if (isPrivateLiteral(target))
      throw new ProblemError(
        422,
        'webhook_address_refused',
        'The address is private, loopback or link-local: events go only to public addresses.',
      );
  };

  routes.get(
    '/api/webhooks',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: "The account's webhook endpoints; never a secret",
        response: { 200: WebhookEndpointListSchema, ...COMMON_PROBLEMS },
      },
    },
    async (request) => ({
      endpoints: await listed(await store.endpoints(accountOf(sessionOf(request)))),
    }),
  );

  routes.post(
    '/api/webhooks',
    {
      preValidation: administer,
      schema: {
        tags,
        summary: 'Subscribe an endpoint to events; its signing secret is answered this once',
        body: WebhookEndpointRequestSchema,
        response: {
          201: WebhookEndpointMadeSchema,
          404: problemResponse('A site given is not bound to this account (`unknown_or_unbound`).'),
          409: problemResponse('The account has 100 endpoints (`webhook_limit_reached`).'),
          422: problemResponse(
            'http:// or a private address while they are not allowed (`webhook_address_refused`).',
          ),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const account = accountOf(session);
      const { url, description, eventTypes, siteIds } = request.body;
      checkAddress(url);
      await sites.refuseUnbound(session, siteIds ?? [], 'the webhook');
      if ((await store.countEndpoints(account)) >= MAX_WEBHOOK_ENDPOINTS)
        throw new ProblemError(
          409,
          'webhook_limit_reached',
          `This account has ${MAX_WEBHOOK_ENDPOINTS} webhooks, as many as it may: delete one first.`,
        );
      const id = `ep_${randomId(24)}`;
      const secret = newWebhookSecret();
      const row = await store.createEndpoint({
        id,
        ...account,
        url,
        description: description ?? '',
        eventTypes: [...new Set(eventTypes)],
        siteIds: [...new Set(siteIds ?? [])],
        enabled: true,
        secretCiphertext: box.seal(secret, webhookSealingKey(id)),
        madeBy: actorOf(session),
        madeByName: byName(session),
        createdAt: new Date(now()),
      });
      await audit.record(session, {
        action: 'endpointMade',
        endpointId: id,
        url,
        changed: { eventTypes: row.eventTypes, siteIds: row.siteIds },
      });
      request.log.info({ endpointId: id }, 'webhook endpoint made');
      const [endpoint] = await listed([row]);
      return reply.code(201).send({ endpoint: endpoint as WebhookEndpoint, secret });
    },
  );
  refuseOtherMethods(app, '/api/webhooks', new Set(['GET', 'HEAD', 'POST']));

  routes.get(
    '/api/webhooks/:endpointId',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: 'One webhook endpoint; never its secret',
        params: EndpointParamsSchema,
        response: { 200: WebhookEndpointSchema, 404: NO_ENDPOINT, ...COMMON_PROBLEMS },
      },
    },
    async (request) => {
      const row = await endpointOr404(accountOf(sessionOf(request)), request.params.endpointId);
      const [endpoint] = await listed([row]);
      return endpoint as WebhookEndpoint;
    },
  );

  routes.patch(
    '/api/webhooks/:endpointId',
    {
      preValidation: administer,
      schema: {
        tags,
        summary:
          'Change an endpoint: what is given changes; `enabled: true` enables it again, `false` turns it off',
        params: EndpointParamsSchema,
        body: WebhookEndpointChangeSchema,
        response: {
          200: WebhookEndpointSchema,
          404: problemResponse(
            'The account has no such webhook endpoint (`not_found`), or a site given is not bound to it (`unknown_or_unbound`).',
          ),
          422: problemResponse(
            'http:// or a private address while they are not allowed (`webhook_address_refused`).',
          ),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const account = accountOf(session);
      const { endpointId } = request.params;
      const before = await endpointOr404(account, endpointId);
      const { url, description, eventTypes, siteIds, enabled } = request.body;
      if (url !== undefined) checkAddress(url);
      await sites.refuseUnbound(session, siteIds ?? [], 'the webhook');
      const set = {
        ...(url !== undefined ? { url } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(eventTypes !== undefined ? { eventTypes: [...new Set(eventTypes)] } : {}),
        ...(siteIds !== undefined ? { siteIds: [...new Set(siteIds)] } : {}),
        ...(enabled === true ? { enabled: true, disabledReason: null, disabledAt: null } : {}),
      };
      if (Object.keys(set).length > 0) await store.updateEndpoint(account, endpointId, set);
      if (enabled === false && before.enabled)
        await store.disable(endpointId, 'byAdministrator', now());
      await audit.record(session, {
        action: 'endpointChanged',
        endpointId,
        url: url ?? before.url,
        changed: { ...request.body },
      });
      request.log.info({ endpointId }, 'webhook endpoint changed');
      const [endpoint] = await listed([await endpointOr404(account, endpointId)]);
      return endpoint as WebhookEndpoint;
    },
  );

  routes.delete(
    '/api/webhooks/:endpointId',
    {
      preValidation: administer,
      schema: {
        tags,
        summary: 'Delete an endpoint and its delivery log: nothing more is sent to it',
        params: EndpointParamsSchema,
        response: { 204: z.null(), 404: NO_ENDPOINT, ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { endpointId } = request.params;
      const before = await endpointOr404(accountOf(session), endpointId);
      await store.deleteEndpoint(accountOf(session), endpointId);
      await audit.record(session, { action: 'endpointDeleted', endpointId, url: before.url });
      request.log.info({ endpointId }, 'webhook endpoint deleted');
      return reply.code(204).send(null);
    },
  );
  refuseOtherMethods(app, '/api/webhooks/:endpointId', new Set(['GET', 'HEAD', 'PATCH', 'DELETE']));

  routes.post(
    '/api/webhooks/:endpointId/rotate-secret',
    {
      preValidation: administer,
      schema: {
        tags,
        summary:
          'A new signing secret, answered this once; the previous one signs beside it for 24 hours',
        params: EndpointParamsSchema,
        response: { 200: WebhookEndpointMadeSchema, 404: NO_ENDPOINT, ...COMMON_PROBLEMS },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const account = accountOf(session);
      const { endpointId } = request.params;
      const before = await endpointOr404(account, endpointId);
      const secret = newWebhookSecret();
      const row = await store.updateEndpoint(account, endpointId, {
        secretCiphertext: box.seal(secret, webhookSealingKey(endpointId)),
        previousSecretCiphertext: before.secretCiphertext,
        previousSecretUntil: new Date(now() + PREVIOUS_SECRET_SIGNS_FOR_MS),
      });
      await audit.record(session, { action: 'secretRotated', endpointId, url: before.url });
      request.log.info({ endpointId }, 'webhook secret rotated');
      const [endpoint] = await listed([row ?? before]);
      return { endpoint: endpoint as WebhookEndpoint, secret };
    },
  );
  refuseOtherMethods(app, '/api/webhooks/:endpointId/rotate-secret', new Set(['POST']));

  const disabledProblem = problemResponse(
    'The endpoint is disabled: enable it first (`webhook_endpoint_disabled`).',
  );
  const refuseDisabled = (row: EndpointRow): void => {
    if (!row.enabled)
      throw new ProblemError(
        409,
        'webhook_endpoint_disabled',
        'This webhook is disabled: enable it first, then send again.',
      );
  };

  routes.post(
    '/api/webhooks/:endpointId/test',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: 'Send the endpoint a `webhook.test` event; it appears in its delivery log',
        params: EndpointParamsSchema,
        response: {
          202: WebhookRedeliveredSchema.describe('How many deliveries were queued: 1'),
          404: NO_ENDPOINT,
          409: disabledProblem,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const account = accountOf(session);
      const { endpointId } = request.params;
      const row = await endpointOr404(account, endpointId);
      refuseDisabled(row);
      const queued = await outbox.record(account, {
        type: 'webhook.test',
        endpointId,
        data: { state: 'test', links: { endpoint: `/api/webhooks/${endpointId}` } },
      });
      await audit.record(session, { action: 'testSent', endpointId, url: row.url });
      return reply.code(202).send({ redelivered: queued });
    },
  );
  refuseOtherMethods(app, '/api/webhooks/:endpointId/test', new Set(['POST']));

  routes.get(
    '/api/webhooks/:endpointId/deliveries',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: "The endpoint's delivery log, newest first, with each delivery's attempts",
        params: EndpointParamsSchema,
        querystring: WebhookDeliveryQuerySchema,
        response: { 200: WebhookDeliveryPageSchema, 404: NO_ENDPOINT, ...COMMON_PROBLEMS },
      },
    },
    async (request) => {
      const account = accountOf(sessionOf(request));
      const { endpointId } = request.params;
      await endpointOr404(account, endpointId);
      const page = await store.deliveries(account, endpointId, request.query);
      return { deliveries: page.deliveries, ...(page.next ? { next: page.next } : {}) };
    },
  );
  refuseOtherMethods(app, '/api/webhooks/:endpointId/deliveries', new Set(['GET', 'HEAD']));

  routes.get(
    '/api/webhooks/:endpointId/deliveries/:deliveryId',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: 'One delivery with its payload and attempts',
        params: DeliveryParamsSchema,
        response: {
          200: WebhookDeliverySchema,
          404: problemResponse('No such endpoint or delivery (`not_found`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const { endpointId, deliveryId } = request.params;
      const delivery = await store.delivery(accountOf(sessionOf(request)), endpointId, deliveryId);
      if (!delivery) throw new ProblemError(404, 'not_found', 'This webhook has no such delivery.');
      return delivery;
    },
  );
  refuseOtherMethods(
    app,
    '/api/webhooks/:endpointId/deliveries/:deliveryId',
    new Set(['GET', 'HEAD']),
  );

  routes.post(
    '/api/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: 'Deliver it again now, with the same webhook-id, and a new round of retries',
        params: DeliveryParamsSchema,
        response: {
          202: WebhookRedeliveredSchema,
          404: problemResponse('No such endpoint or delivery (`not_found`).'),
          409: disabledProblem,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { endpointId, deliveryId } = request.params;
      const row = await endpointOr404(accountOf(session), endpointId);
      refuseDisabled(row);
      const redelivered = await store.redeliver(
        endpointId,
        { id: deliveryId },
        byName(session),
        now(),
      );
      if (redelivered === 0)
        throw new ProblemError(404, 'not_found', 'This webhook has no such delivery.');
      await audit.record(session, {
        action: 'redelivered',
        endpointId,
        url: row.url,
        deliveryId,
        redelivered,
      });
      queue.nudge();
      return reply.code(202).send({ redelivered });
    },
  );
  refuseOtherMethods(
    app,
    '/api/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    new Set(['POST']),
  );

  routes.post(
    '/api/webhooks/:endpointId/redeliver',
    {
      config: tokenMayAdminister,
      preValidation: administer,
      schema: {
        tags,
        summary: 'Deliver again every failed delivery made in the range, each with its webhook-id',
        params: EndpointParamsSchema,
        body: WebhookRedeliverRangeSchema,
        response: {
          202: WebhookRedeliveredSchema,
          404: NO_ENDPOINT,
          409: disabledProblem,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { endpointId } = request.params;
      const row = await endpointOr404(accountOf(session), endpointId);
      refuseDisabled(row);
      const { from, to } = request.body;
      const redelivered = await store.redeliver(
        endpointId,
        { fromMs: Date.parse(from), toMs: Date.parse(to) },
        byName(session),
        now(),
      );
      await audit.record(session, {
        action: 'redelivered',
        endpointId,
        url: row.url,
        range: { from, to },
        redelivered,
      });
      queue.nudge();
      return reply.code(202).send({ redelivered });
    },
  );
  refuseOtherMethods(app, '/api/webhooks/:endpointId/redeliver', new Set(['POST']));
}
