import { z } from 'zod';
import { DeviceCommandSchema } from '../../../domain/command.ts';
import { HistoryQuerySchema } from '../../../domain/history.ts';
import { CommandIdSchema, DeviceIdSchema } from '../../../domain/ids.ts';
import { LEDGER_SPECS } from '../../ledger/ledger-specs.ts';
import { UPSTREAM_PATHS } from '../../upstream/upstream-api.ts';
import { mirrored } from '../mirror.ts';

const DeviceParamsSchema = z.strictObject({ deviceId: DeviceIdSchema });
const CommandParamsSchema = z.strictObject({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
});

/**
 * Single device commands (spec 4; history path DESIGN.md 3): submit (note the singular
 * `/device/`), status, cancel and history, mirrored one to one under `/api`.
 */
export const commandRoutes = [
  mirrored({
    method: 'POST',
    path: '/api/device/:deviceId/commands',
    params: DeviceParamsSchema,
    body: DeviceCommandSchema,
    upstream: ({ params }) => ({ path: UPSTREAM_PATHS.submit(params.deviceId) }),
    ledger: LEDGER_SPECS.submit,
  }),
  mirrored({
    method: 'GET',
    path: '/api/devices/:deviceId/commands/:commandId',
    params: CommandParamsSchema,
    coalesce: true,
    upstream: ({ params }) => ({ path: UPSTREAM_PATHS.status(params) }),
  }),
  mirrored({
    method: 'PUT',
    path: '/api/devices/:deviceId/commands/:commandId/cancel',
    params: CommandParamsSchema,
    upstream: ({ params }) => ({ path: UPSTREAM_PATHS.cancel(params) }),
    ledger: LEDGER_SPECS.cancel,
    // The answer is the command's status record (DESIGN.md 3): polls see it, never the old one.
    afterSuccess: (statuses, { params, session }, body) =>
      statuses.afterCancel(session, UPSTREAM_PATHS.status(params), body),
  }),
  mirrored({
    method: 'GET',
    path: '/api/devices/:deviceId/commands',
    params: DeviceParamsSchema,
    query: HistoryQuerySchema,
    upstream: ({ params, query }) => ({
      path: UPSTREAM_PATHS.history(params.deviceId),
      query: new URLSearchParams({
        startTime: query.startTime,
        endTime: query.endTime,
        ...(query.status ? { status: query.status } : {}),
      }),
    }),
  }),
];
