import { z } from 'zod';

/**
 * Read leniently (docs/upstream.md, Dialects): unknown fields ignored, fields the product does not
 * need optional, both spellings read. Nothing outside this folder names these fields.
 */

const LooseNumber = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

/** A boolean in the OpenAPI document, `normal | fault | alarm` in the requirements. */
const FaultStatus = z
  .union([z.boolean(), z.string()])
  .transform((value) => (typeof value === 'boolean' ? value : value.toLowerCase() === 'fault'));

/** Power ratings in kW. */
export const VendorDeviceSchema = z.object({
  id: z.string(),
  siteId: z.string().nullish(),
  name: z.string().nullish(),
  model: z.string().nullish(),
  maxChargePowerKw: LooseNumber.nullish(),
  batteryCapacityKwh: LooseNumber.nullish(),
  maxDischargePowerKw: LooseNumber.nullish(),
  online: z.boolean().nullish(),
  faultStatus: FaultStatus.nullish(),
});
export type VendorDevice = z.infer<typeof VendorDeviceSchema>;

/** `timezone` is an offset like `UTC+8:00`. */
export const VendorSiteSchema = z.object({
  id: z.string(),
  name: z.string().nullish(),
  countryCode: z.string().nullish(),
  timezone: z.string().nullish(),
  online: z.boolean().nullish(),
  faultStatus: FaultStatus.nullish(),
  devices: z.array(VendorDeviceSchema).nullish(),
});
export type VendorSite = z.infer<typeof VendorSiteSchema>;

const PageFields = {
  total: LooseNumber.nullish(),
  page: LooseNumber.nullish(),
  size: LooseNumber.nullish(),
};

export const VendorSitePageSchema = z.object({
  ...PageFields,
  sites: z.array(VendorSiteSchema).nullish(),
});
export const VendorDevicePageSchema = z.object({
  ...PageFields,
  devices: z.array(VendorDeviceSchema).nullish(),
});

export const VendorCommandSchema = z.object({
  id: z.string(),
  deviceId: z.string().nullish(),
  powerControl: z.record(z.string(), z.unknown()),
  startTime: z.string(),
  endTime: z.string(),
  status: z.string(),
  receivedAt: z.string().nullish(),
  startedAt: z.string().nullish(),
  completedAt: z.string().nullish(),
  cancelledAt: z.string().nullish(),
  cancellReason: z.string().nullish(),
  cancelReason: z.string().nullish(),
});
export type VendorCommand = z.infer<typeof VendorCommandSchema>;

export const VendorCommandPageSchema = z.object({
  ...PageFields,
  commands: z.array(VendorCommandSchema).nullish(),
});

export const VendorSubmissionSchema = z.object({
  id: z.string(),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
});

export const VendorCancelSchema = z.object({
  message: z.string().nullish(),
  commandId: z.string().nullish(),
  timestamp: z.string().nullish(),
});

export const VendorBatchSchema = z.object({
  batchCommandId: z.string(),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
});

export const VendorBatchCancelSchema = z.object({
  batchCommandId: z.string().nullish(),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
  results: z
    .array(
      z.object({
        deviceId: z.string(),
        commandId: z.string().nullish(),
        status: z.string(),
        message: z.string().nullish(),
      }),
    )
    .nullish(),
});

/**
 * One sample of `DeviceTelemetry` (the vendor's document): only what the product reads. Powers in
 * kW, `battery.powerKw` positive = discharge, `meter.gridPowerKw` positive = import.
 */
export const VendorTelemetrySchema = z.object({
  deviceId: z.string().nullish(),
  timestamp: z.string().nullish(),
  battery: z
    .object({ powerKw: LooseNumber.nullish(), socPercent: LooseNumber.nullish() })
    .nullish(),
  meter: z.object({ gridPowerKw: LooseNumber.nullish() }).nullish(),
  pv: z.object({ powerKw: LooseNumber.nullish() }).nullish(),
  thirdPartyPv: z.object({ powerKw: LooseNumber.nullish() }).nullish(),
});
export type VendorTelemetry = z.infer<typeof VendorTelemetrySchema>;

/** `POST /devices/latestData/query`: an array, or one under `data` or `devices`. */
export const VendorTelemetryListSchema = z.union([
  z.array(VendorTelemetrySchema),
  z
    .object({
      data: z.array(VendorTelemetrySchema).nullish(),
      devices: z.array(VendorTelemetrySchema).nullish(),
    })
    .transform((list) => list.data ?? list.devices ?? []),
]);

/** `DeviceTelemetryHistory`: a page of samples under `data`. */
export const VendorTelemetryPageSchema = z.object({
  ...PageFields,
  deviceId: z.string().nullish(),
  data: z.array(VendorTelemetrySchema).nullish(),
});

/** `DeviceConfiguration`: `samplingRate` in seconds (60 or 300), limits in W. */
export const VendorConfigurationSchema = z.object({
  operationMode: z.string().nullish(),
  chargeCutoffSocPercent: LooseNumber.nullish(),
  dischargeCutoffSocPercent: LooseNumber.nullish(),
  siteImportLimitW: LooseNumber.nullish(),
  siteExportLimitW: LooseNumber.nullish(),
  samplingRate: LooseNumber.nullish(),
});
export type VendorConfiguration = z.infer<typeof VendorConfigurationSchema>;

export const VendorAlarmSchema = z.object({
  alarmLevel: z.string().nullish(),
  alarmCode: z.string().nullish(),
  alarmName: z.string().nullish(),
  status: z.string().nullish(),
  startTime: z.string().nullish(),
  endTime: z.string().nullish(),
});
export type VendorAlarm = z.infer<typeof VendorAlarmSchema>;

/** `AlarmListResponse`. */
export const VendorAlarmPageSchema = z.object({
  ...PageFields,
  deviceId: z.string().nullish(),
  alarms: z.array(VendorAlarmSchema).nullish(),
});

/** Only the status is used. */
export const VendorSiteChangeSchema = z.unknown();

/** Either documented shape, read as OAuth's; `expires_in` may be absent, null or a string. */
export const VendorTokenSchema = z
  .looseObject({})
  .transform((body): Record<string, unknown> => {
    const pick = (snake: string, camel: string): unknown => body[snake] ?? body[camel];
    return {
      access_token: pick('access_token', 'accessToken'),
      token_type: pick('token_type', 'tokenType') ?? 'Bearer',
      expires_in: pick('expires_in', 'expiresIn'),
    };
  })
  .pipe(
    z.object({
      access_token: z.string().min(1),
      token_type: z.string().regex(/^bearer$/i),
      expires_in: z
        .union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)])
        .pipe(z.number().int().positive())
        .nullish(),
    }),
  );

/** Any of the vendor's three documented error shapes, read into one. */
export interface VendorError {
  errorCode?: string;
  message?: string;
  details?: Record<string, unknown>;
}

export function readVendorError(body: unknown): VendorError | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const object = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (isEnvelope(record)) {
    const data = object(record.data);
    const errorCode =
      text((record as Record<string, unknown>).errorCode) ??
      text(data?.errorCode) ??
      text(data?.code);
    const message = text(record.msg) ?? text(data?.message);
    const details = object(data?.details) ?? data;
    return {
      ...(errorCode ? { errorCode } : {}),
      ...(message ? { message } : {}),
      ...(details ? { details } : {}),
    };
  }
  const errorCode = text(record.errorCode) ?? text(record.code);
  const message = text(record.message) ?? text(record.msg);
  if (errorCode === undefined && message === undefined) return undefined;
  const details = object(record.details);
  return {
    ...(errorCode ? { errorCode } : {}),
    ...(message ? { message } : {}),
    ...(details ? { details } : {}),
  };
}

/** docs/upstream.md, Dialects. */
export function isEnvelope(body: unknown): body is { code: number; msg: string; data: unknown } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  return typeof record.code === 'number' && typeof record.msg === 'string' && 'data' in record;
}

export function unwrapEnvelope(body: unknown): unknown {
  return isEnvelope(body) ? body.data : body;
}
