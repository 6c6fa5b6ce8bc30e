import { z } from 'zod';
import { ID_PATTERN } from '../../domain/ids.ts';
import { UtcTimestampSchema } from '../../domain/time.ts';
import { endAfterStart } from '../../domain/time-window.ts';

/**
 * The vendor's shapes as the sandbox reads and writes them (docs/upstream.md). These are the
 * sandbox's own schemas, deliberately apart from the product shapes of `src/domain`: the sandbox
 * is the vendor and speaks only its dialect. `docs/upstream.openapi.yaml` describes the same
 * shapes; `test/contract/openapi-document.test.ts` keeps the two in step.
 */

/** Path of every business operation under a region (docs/upstream.md, Sources and base paths). */
export const API_BASE_PATH = '/api/openapi/v1';
/** Path of the token endpoint under a region (docs/upstream.md, Tokens). */
export const TOKEN_PATH = '/api/auth/oauth2/token';

// ---- enumerations ----

/** Command statuses (docs/upstream.md, Status record). */
export const COMMAND_STATUSES = ['received', 'executing', 'completed', 'cancelled'] as const;
export const CommandStatusSchema = z.enum(COMMAND_STATUSES);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

/** Cancellation reasons (docs/upstream.md, Status record). */
export const CANCELLATION_REASONS = [
  'manuallyCancel',
  'timeWindowOverlap',
  'startTimeExpire',
  'deviceFault',
  'notSupported',
] as const;
export const CancellationReasonSchema = z.enum(CANCELLATION_REASONS);
export type CancellationReason = z.infer<typeof CancellationReasonSchema>;

/** Received and executing commands can still change; completed and cancelled never do. */
export const isActiveStatus = (status: CommandStatus) =>
  status === 'received' || status === 'executing';

/** Phase types of a site's grid connection and of a device. */
export const PHASE_TYPES = ['singlePhase', 'threePhase'] as const;
export type PhaseType = (typeof PHASE_TYPES)[number];

// ---- identifiers, paging, query values ----

const idSchema = (what: string) =>
  z.string().regex(ID_PATTERN, {
    error: `${what} must be 1-128 letters, digits, '_' or '-', starting with a letter or digit`,
  });
export const DeviceIdSchema = idSchema('deviceId');
export const SiteIdSchema = idSchema('siteId');
export const CommandIdSchema = idSchema('commandId');
export const BatchCommandIdSchema = idSchema('batchCommandId');

/** Paging of every list (docs/upstream.md, Paging): `page` from 1, `size` 1..500, default 20. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 500;

const wholeNumber = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: `${name} must be a whole number` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `${name} must be at least ${min}` })
        .max(max, { error: `${name} must be at most ${max}` }),
    );

const pageFields = {
  page: wholeNumber('page', 1, 999_999_999).default(1),
  size: wholeNumber('size', 1, MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
};

const booleanParam = (name: string) =>
  z
    .enum(['true', 'false'], { error: `${name} must be true or false` })
    .transform((value) => value === 'true');

/** Query of `GET /sites` (docs/upstream.md, Sites). Unknown parameters are refused. */
export const SiteListQuerySchema = z.strictObject({
  ...pageFields,
  online: booleanParam('online').optional(),
  faultStatus: booleanParam('faultStatus').optional(),
  includeDevices: booleanParam('includeDevices').default(true),
});
export type SiteListQuery = z.infer<typeof SiteListQuerySchema>;

/** Query of `GET /sites/{siteId}`. */
export const SiteDetailQuerySchema = z.strictObject({
  includeDevices: booleanParam('includeDevices').default(true),
});

/** Query of `GET /devices` (docs/upstream.md, Sites). */
export const DeviceListQuerySchema = z.strictObject({
  ...pageFields,
  online: booleanParam('online').optional(),
  faultStatus: booleanParam('faultStatus').optional(),
  gridConnected: booleanParam('gridConnected').optional(),
});
export type DeviceListQuery = z.infer<typeof DeviceListQuerySchema>;

/** Longest range of one history query: 30 days (docs/upstream.md, History). */
export const MAX_HISTORY_RANGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Query of `GET /device/{deviceId}/commands` (docs/upstream.md, History): required UTC
 * `startTime` and `endTime` at most 30 days apart, optional `status`, paging.
 */
export const HistoryQuerySchema = z
  .strictObject({
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
    status: CommandStatusSchema.optional(),
    ...pageFields,
  })
  .superRefine((query, ctx) => {
    const startMs = Date.parse(query.startTime);
    const endMs = Date.parse(query.endTime);
    if (!(endMs > startMs))
      ctx.addIssue({ code: 'custom', message: 'must be after startTime', path: ['endTime'] });
    else if (endMs - startMs > MAX_HISTORY_RANGE_MS)
      ctx.addIssue({
        code: 'custom',
        message: 'the range may be at most 30 days; shorten it or split it into several queries',
        path: ['endTime'],
      });
  });
export type HistoryQuery = z.infer<typeof HistoryQuerySchema>;

// ---- power control and commands ----

/** The power-control properties, in the vendor's order (docs/upstream.md, Commands). */
export const POWER_CONTROL_PROPERTIES = [
  'targetBatteryPowerW',
  'chargeCutoffSocPercent',
  'dischargeCutoffSocPercent',
  'siteImportLimitW',
  'siteExportLimitW',
] as const;
export type PowerControlProperty = (typeof POWER_CONTROL_PROPERTIES)[number];

/**
 * The bounds the vendor's schema itself sets (docs/upstream.md, Commands); outside them a request
 * is 400. `targetBatteryPowerW` has none in the schema: its range is the device's (422).
 */
export const POWER_CONTROL_SCHEMA_BOUNDS: Partial<
  Record<PowerControlProperty, { min: number; max: number }>
> = {
  chargeCutoffSocPercent: { min: 5, max: 100 },
  dischargeCutoffSocPercent: { min: 5, max: 100 },
  siteImportLimitW: { min: 0, max: 65_535 },
  siteExportLimitW: { min: 0, max: 65_535 },
};

const controlValue = (property: PowerControlProperty) => {
  const bounds = POWER_CONTROL_SCHEMA_BOUNDS[property];
  const whole = z
    .number({ error: `${property} must be a number` })
    .int({ error: `${property} must be a whole number` });
  return bounds
    ? whole
        .min(bounds.min, { error: `${property} must be at least ${bounds.min}` })
        .max(bounds.max, { error: `${property} must be at most ${bounds.max}` })
    : whole;
};

/**
 * A power control: at least one property (docs/upstream.md, Commands). `targetBatteryPowerW` is
 * positive to discharge and negative to charge. Unknown properties are refused (400), so a typo
 * is never silently dropped.
 */
export const PowerControlSchema = z
  .strictObject({
    targetBatteryPowerW: controlValue('targetBatteryPowerW').optional(),
    chargeCutoffSocPercent: controlValue('chargeCutoffSocPercent').optional(),
    dischargeCutoffSocPercent: controlValue('dischargeCutoffSocPercent').optional(),
    siteImportLimitW: controlValue('siteImportLimitW').optional(),
    siteExportLimitW: controlValue('siteExportLimitW').optional(),
  })
  .refine((control) => POWER_CONTROL_PROPERTIES.some((p) => control[p] !== undefined), {
    error: 'powerControl must contain at least one control property',
  });
export type PowerControl = z.infer<typeof PowerControlSchema>;

/** A command request: a power control effective in `[startTime, endTime)`, both UTC. */
export const CommandRequestSchema = z
  .strictObject({
    powerControl: PowerControlSchema,
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
  })
  .refine(endAfterStart, { error: 'endTime must be after startTime', path: ['endTime'] });
export type CommandRequest = z.infer<typeof CommandRequestSchema>;

/** Most devices in one batch: the spec's 50, not the vendor's 100 (docs/upstream.md, Batches). */
export const MAX_BATCH_DEVICES = 50;

/** Body of `POST /devices/commands` (docs/upstream.md, Batches). */
export const BatchRequestSchema = z.strictObject({
  devices: z
    .array(DeviceIdSchema)
    .min(1, { error: 'devices must list at least one device' })
    .max(MAX_BATCH_DEVICES, { error: `devices may list at most ${MAX_BATCH_DEVICES} devices` })
    .refine((ids) => new Set(ids).size === ids.length, {
      error: 'devices must not repeat a device',
    }),
  command: CommandRequestSchema,
});
export type BatchRequest = z.infer<typeof BatchRequestSchema>;

/** Body of `POST /sites` and of the spec's `DELETE /sites` (docs/upstream.md, Sites). */
export const SiteBindingRequestSchema = z.strictObject({ siteId: SiteIdSchema });

// ---- answers ----

/** A device (docs/upstream.md, Sites): power in kW, `faultStatus` true when faulted. */
export const DeviceSchema = z.object({
  id: DeviceIdSchema,
  siteId: SiteIdSchema,
  name: z.string(),
  phaseType: z.enum(PHASE_TYPES),
  model: z.string(),
  serialNumber: z.string(),
  ratedPowerKw: z.number(),
  maxReactivePowerKvar: z.number(),
  pvCapacityKw: z.number(),
  batteryCapacityKwh: z.number(),
  maxChargePowerKw: z.number(),
  maxDischargePowerKw: z.number(),
  installDate: UtcTimestampSchema,
  online: z.boolean(),
  faultStatus: z.boolean(),
  gridConnected: z.boolean(),
});
export type Device = z.infer<typeof DeviceSchema>;

/** The vendor's site time zone: a UTC offset such as `UTC+9:30` (docs/upstream.md, Site clocks). */
export const OFFSET_TIME_ZONE_PATTERN = /^UTC[+-]\d{1,2}:\d{2}$/;

/** A site (docs/upstream.md, Sites); `devices` is absent when `includeDevices=false`. */
export const SiteSchema = z.object({
  id: SiteIdSchema,
  name: z.string(),
  countryCode: z.string().regex(/^[A-Z]{2}$/),
  address: z.string(),
  timezone: z.string().regex(OFFSET_TIME_ZONE_PATTERN),
  installDate: UtcTimestampSchema,
  gridMeterId: z.string(),
  gridConnectionPhaseType: z.enum(PHASE_TYPES),
  gridCode: z.string(),
  owner: z.string(),
  totalPvCapacityKw: z.number(),
  totalBatteryCapacityKwh: z.number(),
  totalRatedPowerKw: z.number(),
  totalMaxChargePowerKw: z.number(),
  totalMaxDischargePowerKw: z.number(),
  totalMaxReactivePowerKvar: z.number(),
  online: z.boolean(),
  faultStatus: z.boolean(),
  devices: z.array(DeviceSchema).optional(),
});
export type Site = z.infer<typeof SiteSchema>;

const page = { total: z.number().int().min(0), page: z.number().int(), size: z.number().int() };

/** Answer of `GET /sites` (docs/upstream.md, Paging). */
export const SiteListSchema = z.object({ ...page, sites: z.array(SiteSchema) });
export type SiteList = z.infer<typeof SiteListSchema>;

/** Answer of `GET /devices`: the devices of every bound site, flattened. */
export const DeviceListSchema = z.object({ ...page, devices: z.array(DeviceSchema) });
export type DeviceList = z.infer<typeof DeviceListSchema>;

/** Answer of a bind (`onboarding success`) or an unbind (`offboarding success`). */
export const BindingAnswerSchema = z.object({
  message: z.string(),
  siteId: SiteIdSchema,
  timestamp: UtcTimestampSchema,
});
export type BindingAnswer = z.infer<typeof BindingAnswerSchema>;

/** 202 answer of a command submission. */
export const SubmissionAnswerSchema = z.object({
  id: CommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type SubmissionAnswer = z.infer<typeof SubmissionAnswerSchema>;

/**
 * A command's status record (docs/upstream.md, Status record). The reason is spelled
 * `cancellReason` as the vendor publishes it; the `reasonField` dialect writes `cancelReason`
 * instead or as well. No batch ID.
 */
export const StatusRecordSchema = z.object({
  id: CommandIdSchema,
  deviceId: DeviceIdSchema,
  powerControl: PowerControlSchema,
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  status: CommandStatusSchema,
  receivedAt: UtcTimestampSchema,
  startedAt: UtcTimestampSchema.optional(),
  completedAt: UtcTimestampSchema.optional(),
  cancelledAt: UtcTimestampSchema.optional(),
  cancellReason: CancellationReasonSchema.optional(),
});
export type StatusRecord = z.infer<typeof StatusRecordSchema> & {
  /** Only under the `reasonField` dialect `cancelReason` or `both`. */
  cancelReason?: CancellationReason;
};

/** Answer of `GET /device/{deviceId}/commands` (docs/upstream.md, History). */
export const HistoryPageSchema = z.object({
  deviceId: DeviceIdSchema,
  ...page,
  commands: z.array(StatusRecordSchema),
});
export type HistoryPage = z.infer<typeof HistoryPageSchema>;

/** 200 answer of a command cancel. */
export const CancelAnswerSchema = z.object({
  message: z.string(),
  commandId: CommandIdSchema,
  timestamp: UtcTimestampSchema,
});
export type CancelAnswer = z.infer<typeof CancelAnswerSchema>;

/** 202 answer of a batch: no per-device command IDs (docs/upstream.md, Batches). */
export const BatchAcceptedSchema = z.object({
  batchCommandId: BatchCommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type BatchAccepted = z.infer<typeof BatchAcceptedSchema>;

/** One device's outcome of a batch cancel. */
export const BatchCancelResultSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  status: z.enum(['cancelled', 'failed']),
  message: z.string(),
});
export type BatchCancelResult = z.infer<typeof BatchCancelResultSchema>;

/** 200 answer of a batch cancel, one result per device in request order. */
export const BatchCancelAnswerSchema = z.object({
  message: z.string(),
  batchCommandId: BatchCommandIdSchema,
  results: z.array(BatchCancelResultSchema),
  timestamp: UtcTimestampSchema,
});
export type BatchCancelAnswer = z.infer<typeof BatchCancelAnswerSchema>;

/** The token answer as the partner guide shows it (docs/upstream.md, Tokens). */
export const TokenAnswerSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
});

/** The token answer as the OpenAPI document's `TokenResponse` shows it (`tokenShape: camel`). */
export const CamelTokenAnswerSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().positive(),
});

/** Form fields of the token request; `scope` is accepted and ignored. */
export const TokenRequestSchema = z.object({
  grant_type: z.literal('client_credentials', { error: 'grant_type must be client_credentials' }),
  client_id: z.string().min(1, { error: 'client_id is required' }),
  client_secret: z.string().min(1, { error: 'client_secret is required' }),
  scope: z.string().optional(),
});

// ---- errors ----

/** Error codes and their statuses (docs/upstream.md, Errors). */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TIME_WINDOW_OVERLAP: 409,
  COMMAND_NOT_CANCELLABLE: 409,
  BATCH_NOT_CANCELLABLE: 409,
  SITE_ALREADY_BOUND: 409,
  CAPABILITY_EXCEEDED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Every error but the rate limit's and the token endpoint's (docs/upstream.md, Errors). */
export const ErrorBodySchema = z.object({
  errorCode: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The rate limit's 429 (docs/upstream.md, Rate limit). */
export const RateLimitBodySchema = z.object({
  code: z.literal('RATE_LIMIT_EXCEEDED'),
  message: z.string(),
  details: z.object({
    deviceId: DeviceIdSchema.optional(),
    limit: z.number().int().positive(),
    windowSeconds: z.number().int().positive(),
  }),
  timestamp: UtcTimestampSchema,
});
export type RateLimitBody = z.infer<typeof RateLimitBodySchema>;

/** RFC 6749 section 5.2 error codes of the token endpoint. */
export const OAUTH_ERROR_CODES = ['invalid_request', 'invalid_client', 'unsupported_grant_type'];

/** Every business answer under the `envelope` dialect (docs/upstream.md, Dialects). */
export const EnvelopeSchema = z.object({
  code: z.number().int(),
  msg: z.string(),
  data: z.unknown(),
});
