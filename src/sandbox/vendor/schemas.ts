import { z } from 'zod';
import { ID_PATTERN } from '#domain/ids.ts';
import { UtcTimestampSchema } from '#domain/time.ts';
import { endAfterStart } from '#domain/time-window.ts';

// The vendor's own shapes (docs/upstream.md), apart from src/domain's: the sandbox speaks only its
// dialect. test/contract/openapi-document.test.ts keeps them in step with the OpenAPI document.

export const API_BASE_PATH = '/api/openapi/v1';
export const TOKEN_PATH = '/api/auth/oauth2/token';

export const COMMAND_STATUSES = ['received', 'executing', 'completed', 'cancelled'] as const;
export const CommandStatusSchema = z.enum(COMMAND_STATUSES);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

export const CANCELLATION_REASONS = [
  'manuallyCancel',
  'timeWindowOverlap',
  'startTimeExpire',
  'deviceFault',
  'notSupported',
] as const;
export const CancellationReasonSchema = z.enum(CANCELLATION_REASONS);
export type CancellationReason = z.infer<typeof CancellationReasonSchema>;

export const isActiveStatus = (status: CommandStatus) =>
  status === 'received' || status === 'executing';

export const PHASE_TYPES = ['singlePhase', 'threePhase'] as const;
export type PhaseType = (typeof PHASE_TYPES)[number];

const idSchema = (what: string) =>
  z.string().regex(ID_PATTERN, {
    error: `${what} must be 1-128 letters, digits, '_' or '-', starting with a letter or digit`,
  });
export const DeviceIdSchema = idSchema('deviceId');
export const SiteIdSchema = idSchema('siteId');
export const CommandIdSchema = idSchema('commandId');
export const BatchCommandIdSchema = idSchema('batchCommandId');

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

export const SiteListQuerySchema = z.strictObject({
  ...pageFields,
  online: booleanParam('online').optional(),
  faultStatus: booleanParam('faultStatus').optional(),
  includeDevices: booleanParam('includeDevices').default(true),
});
export type SiteListQuery = z.infer<typeof SiteListQuerySchema>;

export const SiteDetailQuerySchema = z.strictObject({
  includeDevices: booleanParam('includeDevices').default(true),
});

export const DeviceListQuerySchema = z.strictObject({
  ...pageFields,
  online: booleanParam('online').optional(),
  faultStatus: booleanParam('faultStatus').optional(),
  gridConnected: booleanParam('gridConnected').optional(),
});
export type DeviceListQuery = z.infer<typeof DeviceListQuerySchema>;

export const MAX_HISTORY_RANGE_MS = 30 * 24 * 60 * 60 * 1000;

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

export const POWER_CONTROL_PROPERTIES = [
  'targetBatteryPowerW',
  'chargeCutoffSocPercent',
  'dischargeCutoffSocPercent',
  'siteImportLimitW',
  'siteExportLimitW',
] as const;
export type PowerControlProperty = (typeof POWER_CONTROL_PROPERTIES)[number];

// Outside these the vendor answers 400; `targetBatteryPowerW` has only the device's range (422).
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

// Strict, so a typo'd property is refused (400) rather than silently dropped.
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

export const CommandRequestSchema = z
  .strictObject({
    powerControl: PowerControlSchema,
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
  })
  .refine(endAfterStart, { error: 'endTime must be after startTime', path: ['endTime'] });
export type CommandRequest = z.infer<typeof CommandRequestSchema>;

/** The spec's 50, not the vendor's 100 (docs/upstream.md, Batches). */
export const MAX_BATCH_DEVICES = 50;

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

export const SiteBindingRequestSchema = z.strictObject({ siteId: SiteIdSchema });

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

export const OFFSET_TIME_ZONE_PATTERN = /^UTC[+-]\d{1,2}:\d{2}$/;

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

export const SiteListSchema = z.object({ ...page, sites: z.array(SiteSchema) });
export type SiteList = z.infer<typeof SiteListSchema>;

export const DeviceListSchema = z.object({ ...page, devices: z.array(DeviceSchema) });
export type DeviceList = z.infer<typeof DeviceListSchema>;

export const BindingAnswerSchema = z.object({
  message: z.string(),
  siteId: SiteIdSchema,
  timestamp: UtcTimestampSchema,
});
export type BindingAnswer = z.infer<typeof BindingAnswerSchema>;

export const SubmissionAnswerSchema = z.object({
  id: CommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type SubmissionAnswer = z.infer<typeof SubmissionAnswerSchema>;

// `cancellReason` as the vendor publishes it; the `reasonField` dialect writes `cancelReason`.
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
  cancelReason?: CancellationReason;
};

export const HistoryPageSchema = z.object({
  deviceId: DeviceIdSchema,
  ...page,
  commands: z.array(StatusRecordSchema),
});
export type HistoryPage = z.infer<typeof HistoryPageSchema>;

export const CancelAnswerSchema = z.object({
  message: z.string(),
  commandId: CommandIdSchema,
  timestamp: UtcTimestampSchema,
});
export type CancelAnswer = z.infer<typeof CancelAnswerSchema>;

export const BatchAcceptedSchema = z.object({
  batchCommandId: BatchCommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type BatchAccepted = z.infer<typeof BatchAcceptedSchema>;

export const BatchCancelResultSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  status: z.enum(['cancelled', 'failed']),
  message: z.string(),
});
export type BatchCancelResult = z.infer<typeof BatchCancelResultSchema>;

export const BatchCancelAnswerSchema = z.object({
  message: z.string(),
  batchCommandId: BatchCommandIdSchema,
  results: z.array(BatchCancelResultSchema),
  timestamp: UtcTimestampSchema,
});
export type BatchCancelAnswer = z.infer<typeof BatchCancelAnswerSchema>;

export const TokenAnswerSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
});

/** The OpenAPI document's `TokenResponse` (`tokenShape: camel`). */
export const CamelTokenAnswerSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().positive(),
});

export const TokenRequestSchema = z.object({
  grant_type: z.literal('client_credentials', { error: 'grant_type must be client_credentials' }),
  client_id: z.string().min(1, { error: 'client_id is required' }),
  client_secret: z.string().min(1, { error: 'client_secret is required' }),
  scope: z.string().optional(),
});

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

export const ErrorBodySchema = z.object({
  errorCode: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

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

export const OAUTH_ERROR_CODES = ['invalid_request', 'invalid_client', 'unsupported_grant_type'];

export const EnvelopeSchema = z.object({
  code: z.number().int(),
  msg: z.string(),
  data: z.unknown(),
});
