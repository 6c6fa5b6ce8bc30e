import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DeviceCommandSchema } from '../../../domain/command.ts';
import { HistoryQuerySchema } from '../../../domain/history.ts';
import { CommandIdSchema, DeviceIdSchema } from '../../../domain/ids.ts';
import { parseInput } from '../../http/parse.ts';
import { UPSTREAM_PATHS } from '../../upstream/upstream-api.ts';
import { answerChange, mirrorPath, type ProxyDeps } from '../allowlist.ts';
import { passThrough, sendShared } from '../pass-through.ts';

const DeviceParamsSchema = z.strictObject({ deviceId: DeviceIdSchema });
const CommandParamsSchema = z.strictObject({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
});

/**
 * Single device commands (spec 4; history path docs/architecture.md, Upstream contract:
 * History), mirrored one to one under `/api`: submit (note the singular `/device/`), status,
 * cancel and history.
 */
export function commandRoutes(app: FastifyInstance, deps: ProxyDeps): void {
  const { sessions, upstream, statuses } = deps;

  mirrorPath(app, '/api/device/:deviceId/commands', {
    POST: async (request, reply) => {
      const session = await sessions.require(request, 'dispatch');
      const { deviceId } = parseInput(DeviceParamsSchema, request.params, 'path');
      const command = parseInput(DeviceCommandSchema, request.body, 'body');
      return answerChange(deps, request, reply, {
        kind: 'submit',
        session,
        deviceId,
        command,
        send: () => upstream.submit(session, deviceId, command, request.id),
      });
    },
  });

  mirrorPath(app, '/api/devices/:deviceId/commands/:commandId', {
    // Polled by every open tab: answered through the status answers (final ones from memory,
    // others shared between identical polls), never parsed but for a final status.
    GET: async (request, reply) => {
      const session = await sessions.require(request);
      const ref = parseInput(CommandParamsSchema, request.params, 'path');
      const answer = await statuses.fetch(session, UPSTREAM_PATHS.status(ref), () =>
        upstream.status(session, ref),
      );
      return sendShared(reply, answer);
    },
  });

  mirrorPath(app, '/api/devices/:deviceId/commands/:commandId/cancel', {
    PUT: async (request, reply) => {
      const session = await sessions.require(request, 'dispatch');
      const ref = parseInput(CommandParamsSchema, request.params, 'path');
      return answerChange(
        deps,
        request,
        reply,
        {
          kind: 'cancel',
          session,
          ...ref,
          send: () => upstream.cancel(session, ref, request.id),
        },
        // The answer is the command's status record: polls see it, never the old one.
        (body) => statuses.afterCancel(session, UPSTREAM_PATHS.status(ref), body),
      );
    },
  });

  mirrorPath(app, '/api/devices/:deviceId/commands', {
    GET: async (request, reply) => {
      const session = await sessions.require(request);
      const { deviceId } = parseInput(DeviceParamsSchema, request.params, 'path');
      const query = parseInput(HistoryQuerySchema, request.query, 'query');
      return passThrough(reply, await upstream.history(session, deviceId, query, request.id));
    },
  });
}
