import { z } from 'zod';
import { UtcTimestampSchema } from '#domain/time.ts';
import { DeviceIdSchema, MAX_HISTORY_RANGE_MS, MAX_PAGE_SIZE, SiteIdSchema } from './schemas.ts';

// The vendor's telemetry, energy, alarm and configuration shapes (docs/upstream.md, Telemetry),
// beside schemas.ts so that file stays about commands. Field names and units are the vendor's:
// kW and kWh in telemetry, W in the configuration. test/contract/openapi-document.test.ts keeps
// them in step with docs/upstream.openapi.yaml.

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
  size: wholeNumber('size', 1, MAX_PAGE_SIZE).default(20),
};

const rangeRule = (
  query: { startTime?: string | undefined; endTime?: string | undefined },
  ctx: z.RefinementCtx,
) => {
  if (query.startTime === undefined || query.endTime === undefined) return;
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
};

/** `GET /devices/{deviceId}/historicalData`: both times required, at most 30 days apart. */
export const TelemetryHistoryQuerySchema = z
  .strictObject({ startTime: UtcTimestampSchema, endTime: UtcTimestampSchema, ...pageFields })
  .superRefine(rangeRule);
export type TelemetryHistoryQuery = z.infer<typeof TelemetryHistoryQuerySchema>;

/** The vendor's limit of `POST /devices/latestData/query`. */
export const MAX_LATEST_DATA_DEVICES = 100;

export const LatestDataRequestSchema = z.strictObject({
  devices: z
    .array(DeviceIdSchema)
    .min(1, { error: 'devices must list at least one device' })
    .max(MAX_LATEST_DATA_DEVICES, {
      error: `devices may list at most ${MAX_LATEST_DATA_DEVICES} devices`,
    })
    .refine((ids) => new Set(ids).size === ids.length, {
      error: 'devices must not repeat a device',
    }),
});
export type LatestDataRequest = z.infer<typeof LatestDataRequestSchema>;

const kw = z.number();
const kwh = z.number();

/** Meter of the device's share of its site: positive `gridPowerKw` imports. */
export const TelemetryMeterSchema = z.object({
  gridPowerKw: kw,
  gridReactivePowerKvar: z.number(),
  gridFrequencyHz: z.number(),
  phaseAVoltageV: z.number(),
  phaseBVoltageV: z.number().optional(),
  phaseCVoltageV: z.number().optional(),
  phaseACurrentA: z.number(),
  phaseBCurrentA: z.number().optional(),
  phaseCCurrentA: z.number().optional(),
  cumulativeGridImportKwh: kwh,
  cumulativeGridExportKwh: kwh,
});

/** Inverter AC side: positive `powerKw` is generation (PV plus battery discharge). */
export const TelemetryInverterSchema = z.object({
  powerKw: kw,
  reactivePowerKvar: z.number(),
  frequencyHz: z.number(),
  phaseAVoltageV: z.number(),
  phaseBVoltageV: z.number().optional(),
  phaseCVoltageV: z.number().optional(),
  phaseACurrentA: z.number(),
  phaseBCurrentA: z.number().optional(),
  phaseCCurrentA: z.number().optional(),
  cumulativeGenerationKwh: kwh,
  cumulativeConsumptionKwh: kwh,
  temperatureC: z.number(),
});

/** Positive `powerKw` and `currentA` discharge, the sign of `targetBatteryPowerW`. */
export const TelemetryBatterySchema = z.object({
  socPercent: z.number().int().min(0).max(100),
  sohPercent: z.number().int().min(0).max(100),
  voltageV: z.number(),
  currentA: z.number(),
  powerKw: kw,
  cumulativeChargeKwh: kwh,
  cumulativeDischargeKwh: kwh,
  temperatureC: z.number(),
});

export const TelemetryPvSchema = z.object({ powerKw: kw, cumulativeGenerationKwh: kwh });

/** `DeviceTelemetry`; `thirdPartyPv` left out: no sandbox device has AC-coupled PV. */
export const DeviceTelemetrySchema = z.object({
  deviceId: DeviceIdSchema,
  timestamp: UtcTimestampSchema,
  meter: TelemetryMeterSchema,
  inverter: TelemetryInverterSchema,
  battery: TelemetryBatterySchema,
  pv: TelemetryPvSchema,
  thirdPartyPv: TelemetryPvSchema.optional(),
});
export type DeviceTelemetry = z.infer<typeof DeviceTelemetrySchema>;

export const LatestDataAnswerSchema = z.array(DeviceTelemetrySchema);

const page = { total: z.number().int().min(0), page: z.number().int(), size: z.number().int() };

export const DeviceTelemetryHistorySchema = z.object({
  deviceId: DeviceIdSchema,
  ...page,
  data: z.array(DeviceTelemetrySchema),
});
export type DeviceTelemetryHistory = z.infer<typeof DeviceTelemetryHistorySchema>;

export const ENERGY_PERIODS = ['day', 'month', 'year'] as const;
export type EnergyPeriod = (typeof ENERGY_PERIODS)[number];

const LocalDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date such as 2026-11-21' })
  .refine((text) => new Date(`${text}T00:00:00Z`).toISOString().startsWith(text), {
    error: 'must be a date that exists',
  });

/** The sandbox's bound on the days an energy query spans (docs/upstream.md, Telemetry). */
export const MAX_ENERGY_RANGE_DAYS = 366;

export const EnergyQuerySchema = z
  .strictObject({
    siteId: SiteIdSchema,
    period: z.enum(ENERGY_PERIODS, { error: 'period must be day, month or year' }),
    startDate: LocalDateSchema,
    endDate: LocalDateSchema,
  })
  .superRefine((query, ctx) => {
    const days = (Date.parse(query.endDate) - Date.parse(query.startDate)) / 86_400_000;
    if (days < 0)
      ctx.addIssue({ code: 'custom', message: 'must not be before startDate', path: ['endDate'] });
    else if (days >= MAX_ENERGY_RANGE_DAYS)
      ctx.addIssue({
        code: 'custom',
        message: `the range may span at most ${MAX_ENERGY_RANGE_DAYS} days`,
        path: ['endDate'],
      });
  });
export type EnergyQuery = z.infer<typeof EnergyQuerySchema>;

export const EnergyPointSchema = z.object({
  date: z.string(),
  batteryChargeKwh: kwh,
  batteryDischargeKwh: kwh,
  pvGenerationKwh: kwh,
  thirdPartyPvGenerationKwh: kwh,
  inverterGenerationKwh: kwh,
  inverterConsumptionKwh: kwh,
  gridImportKwh: kwh,
  gridExportKwh: kwh,
});
export type EnergyPoint = z.infer<typeof EnergyPointSchema>;

export const DeviceEnergyStatisticsSchema = z.object({
  siteId: SiteIdSchema,
  deviceId: DeviceIdSchema,
  period: z.enum(ENERGY_PERIODS),
  startDate: z.string(),
  endDate: z.string(),
  data: z.array(EnergyPointSchema),
});
export type DeviceEnergyStatistics = z.infer<typeof DeviceEnergyStatisticsSchema>;

export const ALARM_LEVELS = ['fault', 'alarm', 'notice'] as const;
export const ALARM_STATUSES = ['active', 'resolved'] as const;

/** `endTime` is left out while the alarm is active (the vendor's "null", which its schema forbids). */
export const AlarmSchema = z.object({
  alarmLevel: z.enum(ALARM_LEVELS),
  alarmCode: z.string(),
  alarmName: z.string(),
  status: z.enum(ALARM_STATUSES),
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema.optional(),
});
export type Alarm = z.infer<typeof AlarmSchema>;

export const AlarmListSchema = z.object({
  deviceId: DeviceIdSchema,
  ...page,
  alarms: z.array(AlarmSchema),
});
export type AlarmList = z.infer<typeof AlarmListSchema>;

/** Times optional; the range the sandbox reads when one is left out: docs/upstream.md, Telemetry. */
export const AlarmQuerySchema = z
  .strictObject({
    alarmLevel: z
      .enum(ALARM_LEVELS, { error: 'alarmLevel must be fault, alarm or notice' })
      .optional(),
    status: z.enum(ALARM_STATUSES, { error: 'status must be active or resolved' }).optional(),
    startTime: UtcTimestampSchema.optional(),
    endTime: UtcTimestampSchema.optional(),
    ...pageFields,
  })
  .superRefine(rangeRule);
export type AlarmQuery = z.infer<typeof AlarmQuerySchema>;

export const OPERATION_MODES = ['selfConsumption', 'feedInPriority', 'backupMode'] as const;
export type OperationMode = (typeof OPERATION_MODES)[number];
export const SAMPLING_RATES_S = [60, 300] as const;
export type SamplingRateS = (typeof SAMPLING_RATES_S)[number];

const bounded = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int({ error: `${name} must be a whole number` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` });

const configurationFields = {
  operationMode: z.enum(OPERATION_MODES, {
    error: 'operationMode must be selfConsumption, feedInPriority or backupMode',
  }),
  chargeCutoffSocPercent: bounded('chargeCutoffSocPercent', 5, 100),
  dischargeCutoffSocPercent: bounded('dischargeCutoffSocPercent', 5, 100),
  siteImportLimitW: bounded('siteImportLimitW', 0, 65_535),
  siteExportLimitW: bounded('siteExportLimitW', 0, 65_535),
  samplingRate: z.union([z.literal(60), z.literal(300)], {
    error: 'samplingRate must be 60 or 300 (seconds)',
  }),
};

/** `DeviceConfiguration` as `GET` answers it: every field. */
export const DeviceConfigurationSchema = z.object(configurationFields);
export type DeviceConfiguration = z.infer<typeof DeviceConfigurationSchema>;

/**
 * `PUT` body: any of the fields, at least one, strict (a misspelt field is 400, not ignored); a
 * charge cut-off below the discharge cut-off is the vendor's "parameter conflict" (400).
 */
export const ConfigurationUpdateSchema = z
  .strictObject({
    operationMode: configurationFields.operationMode.optional(),
    chargeCutoffSocPercent: configurationFields.chargeCutoffSocPercent.optional(),
    dischargeCutoffSocPercent: configurationFields.dischargeCutoffSocPercent.optional(),
    siteImportLimitW: configurationFields.siteImportLimitW.optional(),
    siteExportLimitW: configurationFields.siteExportLimitW.optional(),
    samplingRate: configurationFields.samplingRate.optional(),
  })
  .refine((update) => Object.values(update).some((value) => value !== undefined), {
    error: 'the configuration must set at least one field',
  });
export type ConfigurationUpdate = z.infer<typeof ConfigurationUpdateSchema>;

/** `set` lists one object per field set, `{ field: value }`, as the document's array of objects. */
export const ConfigurationSetAnswerSchema = z.object({
  message: z.literal('configuration set'),
  set: z.array(z.record(z.string(), z.unknown())),
  timestamp: UtcTimestampSchema,
});
export type ConfigurationSetAnswer = z.infer<typeof ConfigurationSetAnswerSchema>;
