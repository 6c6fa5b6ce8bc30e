import { z } from 'zod';

/**
 * The vendor's answers as the adapter reads them (docs/upstream.md; the vendor's OpenAPI
 * document, schemas `Site`, `Device`, `CommandStatus`, `CommandListResponse`, `Error`). Read
 * leniently where the vendor's documents disagree or leave fields optional: unknown fields are
 * ignored, every field the product does not need may be missing, and both documented spellings
 * are read (`cancellReason` and `cancelReason`; the guide's snake_case token and the document's
 * camelCase one). Nothing outside this folder names these fields.
 */

/** A number, or a numeric string as some servers send one. */
const LooseNumber = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

/**
 * The vendor's `faultStatus`: a boolean in the OpenAPI document, `normal | fault | alarm` in the
 * requirements (docs/upstream.md, Dialects). True when faulted.
 */
const FaultStatus = z
  .union([z.boolean(), z.string()])
  .transform((value) => (typeof value === 'boolean' ? value : value.toLowerCase() === 'fault'));

/** `Device` of the vendor's document; power ratings in kW. */
export const VendorDeviceSchema = z.object({
  id: z.string(),
  siteId: z.string().nullish(),
  name: z.string().nullish(),
  model: z.string().nullish(),
  maxChargePowerKw: LooseNumber.nullish(),
  maxDischargePowerKw: LooseNumber.nullish(),
  online: z.boolean().nullish(),
  faultStatus: FaultStatus.nullish(),
});
export type VendorDevice = z.infer<typeof VendorDeviceSchema>;

/** `Site` (and `SiteDetail`) of the vendor's document; `timezone` is an offset like `UTC+8:00`. */
export const VendorSiteSchema = z.object({
  id: z.string(),
  name: z.string().nullish(),
  countryCode: z.string().nullish(),
  timezone: z.string().nullish(),
  online: z.boolean().nullish(),
  faultStatus: FaultStatus.nullish(),
  /** Absent or null when the vendor left devices out (`includeDevices=false`). */
  devices: z.array(VendorDeviceSchema).nullish(),
});
export type VendorSite = z.infer<typeof VendorSiteSchema>;

/** What every page of a vendor list carries besides its items: `{ total, page, size }`. */
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

/** `CommandStatus` of the vendor's document, with either spelling of the reason. */
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

/** 202 of a submission: `{ id, message, timestamp }` (the envelope's example omits `message`). */
export const VendorSubmissionSchema = z.object({
  id: z.string(),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
});

/** 200 of a cancel: `{ message, commandId, timestamp }`. */
export const VendorCancelSchema = z.object({
  message: z.string().nullish(),
  commandId: z.string().nullish(),
  timestamp: z.string().nullish(),
});

/** 202 of a batch: `{ batchCommandId, message, timestamp }`, no command IDs. */
export const VendorBatchSchema = z.object({
  batchCommandId: z.string(),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
});

/** 200 of a batch cancel: one result per device, `cancelled` or `failed`. */
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

/** 200 of a bind or unbind: `{ message, siteId, timestamp }`; only the status is used. */
export const VendorSiteChangeSchema = z.unknown();

/**
 * A token answer in either documented shape: the guide's OAuth 2.0 `{ access_token, token_type,
 * expires_in }` or the OpenAPI document's `{ accessToken, tokenType, expiresIn }`, read as the
 * former. `expires_in` may be absent, null or a numeric string (docs/upstream.md, Tokens).
 */
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

/**
 * A vendor error in any of its three documented shapes, read into one: `{ errorCode, message,
 * timestamp }` (the OpenAPI document), `{ code: "RATE_LIMIT_EXCEEDED", message, details,
 * timestamp }` (the requirements' 429), and the envelope `{ code: 404, msg, data }` (the
 * requirements' later proposal). Undefined when the body is none of them.
 */
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

/**
 * True for the requirements' envelope `{ code, msg, data }` (docs/upstream.md, Dialects): a
 * numeric `code` equal to an HTTP status, a `msg`, and a `data` member.
 */
export function isEnvelope(body: unknown): body is { code: number; msg: string; data: unknown } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  return typeof record.code === 'number' && typeof record.msg === 'string' && 'data' in record;
}

/** The business answer of a body: an envelope's `data`, else the body itself. */
export function unwrapEnvelope(body: unknown): unknown {
  return isEnvelope(body) ? body.data : body;
}
