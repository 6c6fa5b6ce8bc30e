import { z } from 'zod';
import { DeviceCommandSchema } from '../../../domain/command.ts';
import { HistoryQuerySchema } from '../../../domain/history.ts';
import { CommandIdSchema, DeviceIdSchema } from '../../../domain/ids.ts';
import { LEDGER_SPECS } from '../../ledger/ledger-specs.ts';
import { mirrored } from '../mirror.ts';

const DeviceParamsSchema = z.strictObject({ deviceId: DeviceIdSchema });
const CommandParamsSchema = z.strictObject({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
});

const device = (id: string) => encodeURIComponent(id);
/** The upstream path of one command's status (spec 4, "Query command status"). */
export const statusPath = (params: { deviceId: string; commandId: string }) =>
  `/devices/${device(params.deviceId)}/commands/${encodeURIComponent(params.commandId)}`;

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
    upstream: ({ params }) => ({ path: `/device/${device(params.deviceId)}/commands` }),
    ledger: LEDGER_SPECS.submit,
  }),
  mirrored({
    method: 'GET',
    path: '/api/devices/:deviceId/commands/:commandId',
    params: CommandParamsSchema,
    coalesce: true,
    upstream: ({ params }) => ({ path: statusPath(params) }),
  }),
  mirrored({
    method: 'PUT',
    path: '/api/devices/:deviceId/commands/:commandId/cancel',
    params: CommandParamsSchema,
    upstream: ({ params }) => ({ path: `${statusPath(params)}/cancel` }),
    ledger: LEDGER_SPECS.cancel,
    // The answer is the command's status record (DESIGN.md 3): polls see it, never the old one.
    afterSuccess: (statuses, { params, session }, body) =>
      statuses.afterCancel(session, statusPath(params), body),
  }),
  mirrored({
    method: 'GET',
    path: '/api/devices/:deviceId/commands',
    params: DeviceParamsSchema,
    query: HistoryQuerySchema,
    upstream: ({ params, query }) => ({
      path: `/devices/${device(params.deviceId)}/commands`,
      query: new URLSearchParams({
        startTime: query.startTime,
        endTime: query.endTime,
        ...(query.status ? { status: query.status } : {}),
      }),
    }),
  }),
];
