import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { UtcTimestampSchema } from '#domain/time.ts';
import { FaultSettingsSchema, type FaultInjector } from '../http/faults.ts';
import { parse } from '../http/parse.ts';
import { SandboxError } from '../sandbox-error.ts';
import { DEVICE_CALL_WINDOW_MS } from '../state/device-call-limit.ts';
import type { SandboxState } from '../state/sandbox-state.ts';
import { DialectSettingsSchema, type SandboxDialect } from '../vendor/dialect.ts';
import { DeviceIdSchema } from '../vendor/schemas.ts';
import { BEHAVIOURS } from '../model/behaviours.ts';

const ClockMoveSchema = z
  .strictObject({
    advanceMs: z.number().int().min(0).optional(),
    now: UtcTimestampSchema.optional(),
  })
  .refine((body) => (body.advanceMs === undefined) !== (body.now === undefined), {
    error: 'send exactly one of advanceMs (milliseconds, >= 0) or now (ISO 8601 UTC)',
  });

const DeviceConditionSchema = z.strictObject({
  online: z.boolean().optional(),
  fault: z.boolean().optional(),
  behaviour: z.enum(BEHAVIOURS).optional(),
});

const DeviceParamsSchema = z.object({ deviceId: DeviceIdSchema });

/** Body of `PUT /_sandbox/rate-limit`: requests per device per rolling minute, 0 = off. */
const RateLimitSettingSchema = z.strictObject({
  perDevicePerMinute: z.number().int().min(0).max(10_000),
});

/**
 * The sandbox admin API (src/sandbox/README.md, Admin API), never part of the vendor contract:
 * reset, clock, device condition, faults, the vendor's rate limit (docs/upstream.md, Rate
 * limit), the dialect (docs/upstream.md, Dialects) and the request counters
 * `GET|DELETE /_sandbox/stats`. Refused with 403 `FORBIDDEN` unless `enabled`.
 */
export async function adminRoutes(
  app: FastifyInstance,
  options: {
    state: SandboxState;
    faults: FaultInjector;
    dialect: SandboxDialect;
    enabled: boolean;
    /** The embedding process's hook after a reset (`SandboxOptions.onReset`). */
    onReset?: (() => Promise<void>) | undefined;
  },
): Promise<void> {
  const { state, faults, dialect } = options;
  const clock = () => ({ now: new Date(state.nowMs()).toISOString() });

  app.addHook('onRequest', async () => {
    if (!options.enabled)
      throw new SandboxError(
        'FORBIDDEN',
        'The sandbox admin API is off: it is served only on a loopback address or with SANDBOX_ADMIN=1',
      );
  });

  app.post('/reset', async () => {
    await state.reset();
    faults.reset();
    dialect.reset();
    await options.onReset?.();
    return clock();
  });

  app.get('/clock', async () => clock());

  app.post('/clock', async (request) => {
    const body = parse(ClockMoveSchema, request.body, 'body');
    if (body.now !== undefined) await state.moveClock(Date.parse(body.now));
    else await state.advanceClock(body.advanceMs ?? 0);
    return clock();
  });

  app.put('/devices/:deviceId', async (request) => {
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const update = parse(DeviceConditionSchema, request.body ?? {}, 'body');
    return state.setDeviceCondition(deviceId, update);
  });

  app.get('/faults', async () => faults.current);

  app.put('/faults', async (request) => {
    faults.set(parse(FaultSettingsSchema, request.body ?? {}, 'body'));
    return faults.current;
  });

  const rateLimit = () => ({
    perDevicePerMinute: state.deviceCalls.perMinute,
    windowSeconds: DEVICE_CALL_WINDOW_MS / 1000,
  });

  app.get('/rate-limit', async () => rateLimit());

  app.put('/rate-limit', async (request) => {
    state.deviceCalls.set(
      parse(RateLimitSettingSchema, request.body ?? {}, 'body').perDevicePerMinute,
    );
    return rateLimit();
  });

  app.get('/dialect', async () => dialect.current);

  app.put('/dialect', async (request) => {
    dialect.set(parse(DialectSettingsSchema, request.body ?? {}, 'body'));
    return dialect.current;
  });

  const stats = () => ({ ...faults.stats(), byDevice: state.deviceCalls.stats() });

  app.get('/stats', async () => stats());

  app.delete('/stats', async () => {
    faults.clearStats();
    state.deviceCalls.clearStats();
    return stats();
  });
}
