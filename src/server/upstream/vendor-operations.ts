import { z } from 'zod';
import type { BatchCancelResponse, BatchCancelResult, BatchRequest } from '#domain/batch.ts';
import type {
  CommandCancellation,
  DeviceCommand,
  StatusRecord,
  SubmissionResponse,
} from '#domain/command.ts';
import type { HistoryQuery } from '#domain/history.ts';
import { ProblemError } from '../http/problem.ts';
import type { UpstreamCall } from './upstream-client.ts';
import { MAX_PASS_THROUGH_BYTES } from './upstream-http.ts';
import type { RefusalContext } from './upstream-problem.ts';
import type { RefusalLookups } from './refusal-lookups.ts';
import { toStatusRecord, toUtc } from './vendor-mapping.ts';
import {
  toDeviceAlarm,
  toLatestSamples,
  toTelemetrySample,
  toTelemetrySettings,
  type DeviceAlarm,
} from './vendor-telemetry.ts';
import {
  VendorBatchCancelSchema,
  VendorBatchSchema,
  VendorCancelSchema,
  VendorCommandPageSchema,
  VendorCommandSchema,
  VendorDevicePageSchema,
  VendorSitePageSchema,
  VendorSiteChangeSchema,
  VendorSiteSchema,
  VendorSubmissionSchema,
  VendorAlarmPageSchema,
  VendorConfigurationSchema,
  VendorTelemetryListSchema,
  VendorTelemetryPageSchema,
  VendorTelemetrySchema,
  type VendorAlarm,
  type VendorCommand,
  type VendorTelemetry,
  type VendorDevice,
  type VendorSite,
} from './vendor-schemas.ts';

/** A span of a device's telemetry or alarms, each at most 30 days (docs/upstream.md, Telemetry). */
export interface DeviceRange {
  deviceId: string;
  startMs: number;
  endMs: number;
}

export interface CommandRef {
  deviceId: string;
  commandId: string;
}

/** The vendor's largest (docs/upstream.md, Paging). */
export const PAGE_SIZE = 500;
/** The `large` fixture's 30-day history is about 1 MiB. */
export const MAX_PAGE_BYTES = MAX_PASS_THROUGH_BYTES;

type RefusalAbout = Omit<RefusalContext, 'nowMs'>;

interface OperationBase<P> {
  method: UpstreamCall['method'];
  /** Submission and history are `/device/` (singular) as the vendor writes them. */
  path: (params: P) => string;
  /** A 429 is never retried blind (decision 007, section 1). */
  once?: boolean;
  about: (params: P) => RefusalAbout;
}

export interface ReadOperation<P, S extends z.ZodType, T> extends OperationBase<P> {
  kind: 'read';
  /** A read sent as a POST (`latestData/query`). */
  body?: (params: P) => unknown;
  answer: S;
  what: string;
  maps: (answer: z.output<S>, params: P) => T;
}

export interface ListOperation<P, S extends z.ZodType, I, T> extends OperationBase<P> {
  kind: 'list';
  query: (params: P) => URLSearchParams;
  answer: S;
  what: string;
  items: (page: z.output<S>) => I[] | null | undefined;
  maps: (item: I, params: P) => T;
}

/** Never throws; an accepted answer that does not fit `answer` is an unknown outcome. */
export interface ChangeOperation<P, S extends z.ZodType, T> extends OperationBase<P> {
  kind: 'change';
  body?: (params: P) => unknown;
  answer: S;
  /** `nowMs` stands in for a missing time. */
  maps: (answer: z.output<S>, params: P, status: number, nowMs: number) => Accepted<T>;
  refine?: (status: number, params: P, lookups: RefusalLookups) => Promise<Partial<RefusalContext>>;
}

interface Accepted<T> {
  status: number;
  value: T;
}

const id = encodeURIComponent;
const read = <P, S extends z.ZodType, T>(
  operation: Omit<ReadOperation<P, S, T>, 'kind'>,
): ReadOperation<P, S, T> => ({ kind: 'read', ...operation });
const list = <P, S extends z.ZodType, I, T>(
  operation: Omit<ListOperation<P, S, I, T>, 'kind'>,
): ListOperation<P, S, I, T> => ({ kind: 'list', ...operation });
const change = <P, S extends z.ZodType, T>(
  operation: Omit<ChangeOperation<P, S, T>, 'kind'>,
): ChangeOperation<P, S, T> => ({ kind: 'change', ...operation });

/** Every vendor operation the product uses (docs/upstream.md; decision 006, section 2). */
export const VENDOR_OPERATIONS = {
  sites: list({
    method: 'GET',
    path: () => '/sites',
    query: () => new URLSearchParams({ includeDevices: 'true' }),
    answer: VendorSitePageSchema,
    what: 'site list',
    items: (page) => page.sites,
    maps: (site: VendorSite) => site,
    about: () => ({ operation: 'sites' }),
  }),
  devices: list({
    method: 'GET',
    path: () => '/devices',
    query: () => new URLSearchParams(),
    answer: VendorDevicePageSchema,
    what: 'device list',
    items: (page) => page.devices,
    maps: (device: VendorDevice) => device,
    about: () => ({ operation: 'devices' }),
  }),
  site: read({
    method: 'GET',
    path: (siteId: string) => `/sites/${id(siteId)}`,
    answer: VendorSiteSchema,
    what: 'site',
    maps: (site) => site,
    about: (siteId) => ({ operation: 'site', siteId }),
  }),
  bind: change({
    method: 'POST',
    path: (_siteId: string) => '/sites',
    body: (siteId) => ({ siteId }),
    answer: VendorSiteChangeSchema,
    maps: (_answer, _siteId, status) => ({ status, value: undefined }),
    about: (siteId) => ({ operation: 'bind', siteId }),
  }),
  unbind: change({
    method: 'DELETE',
    path: (siteId: string) => `/sites/${id(siteId)}`,
    answer: VendorSiteChangeSchema,
    maps: () => ({ status: 204, value: undefined }),
    about: (siteId) => ({ operation: 'unbind', siteId }),
  }),
  submit: change({
    method: 'POST',
    path: ({ deviceId }: { deviceId: string; command: DeviceCommand }) =>
      `/device/${id(deviceId)}/commands`,
    body: ({ command }) => command,
    answer: VendorSubmissionSchema,
    maps: (answer, _params, _status, nowMs): Accepted<SubmissionResponse> => ({
      status: 202,
      value: {
        id: answer.id,
        message: 'The device received the command.',
        timestamp: toUtc(answer.timestamp) ?? new Date(nowMs).toISOString(),
      },
    }),
    about: ({ deviceId }) => ({ operation: 'submit', deviceId }),
    refine: async (status, { deviceId, command }, lookups) =>
      status === 422
        ? { outOfRange: await lookups.outOfRange([deviceId], command) }
        : { overlap: await lookups.overlapOf(deviceId, command) },
  }),
  status: read({
    method: 'GET',
    path: ({ deviceId, commandId }: CommandRef) =>
      `/devices/${id(deviceId)}/commands/${id(commandId)}`,
    once: true,
    answer: VendorCommandSchema,
    what: 'command status',
    maps: (command, ref): StatusRecord => {
      const record = toStatusRecord(command, ref.deviceId);
      if (!record) throw unreadable('command status');
      return record;
    },
    about: (ref) => ({ operation: 'status', deviceId: ref.deviceId }),
  }),
  cancel: change({
    method: 'PUT',
    path: ({ deviceId, commandId }: CommandRef) =>
      `/devices/${id(deviceId)}/commands/${id(commandId)}/cancel`,
    once: true,
    // An empty answer is a cancel without its details.
    answer: z.preprocess((answer) => answer ?? {}, VendorCancelSchema),
    maps: (answer, ref, _status, nowMs): Accepted<CommandCancellation> => ({
      status: 200,
      value: {
        deviceId: ref.deviceId,
        commandId: ref.commandId,
        status: 'cancelled',
        cancelledAt: toUtc(answer.timestamp) ?? new Date(nowMs).toISOString(),
        cancelReason: 'manuallyCancel',
      },
    }),
    about: (ref) => ({ operation: 'cancel', deviceId: ref.deviceId }),
  }),
  history: list({
    method: 'GET',
    path: ({ deviceId }: { deviceId: string; query: HistoryQuery }) =>
      `/device/${id(deviceId)}/commands`,
    query: ({ query }) =>
      new URLSearchParams({
        startTime: query.startTime,
        endTime: query.endTime,
        ...(query.status ? { status: query.status } : {}),
      }),
    once: true,
    answer: VendorCommandPageSchema,
    what: 'command history',
    items: (page) => page.commands,
    maps: (command: VendorCommand, { deviceId }): StatusRecord => {
      const record = toStatusRecord(command, deviceId);
      if (!record) throw unreadable('command history');
      return record;
    },
    about: ({ deviceId }) => ({ operation: 'history', deviceId }),
  }),
  latestData: read({
    method: 'GET',
    path: (deviceId: string) => `/devices/${id(deviceId)}/latestData`,
    once: true,
    answer: VendorTelemetrySchema,
    what: 'latest telemetry',
    maps: (telemetry) => toTelemetrySample(telemetry),
    about: (deviceId) => ({ operation: 'latestData', deviceId }),
  }),
  /** Counted once per listed device, like a batch; at most 100 devices. */
  latestDataQuery: read({
    method: 'POST',
    path: (_deviceIds: readonly string[]) => '/devices/latestData/query',
    body: (deviceIds) => ({ devices: deviceIds }),
    once: true,
    answer: VendorTelemetryListSchema,
    what: 'latest telemetry of several devices',
    maps: (telemetry) => toLatestSamples(telemetry),
    about: (deviceIds) => ({ operation: 'latestDataQuery', deviceIds: [...deviceIds] }),
  }),
  telemetryHistory: list({
    method: 'GET',
    path: ({ deviceId }: DeviceRange) => `/devices/${id(deviceId)}/historicalData`,
    query: ({ startMs, endMs }) =>
      new URLSearchParams({
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(endMs).toISOString(),
      }),
    once: true,
    answer: VendorTelemetryPageSchema,
    what: 'telemetry history',
    items: (page) => page.data,
    maps: (telemetry: VendorTelemetry) => toTelemetrySample(telemetry),
    about: ({ deviceId }) => ({ operation: 'telemetryHistory', deviceId }),
  }),
  configuration: read({
    method: 'GET',
    path: (deviceId: string) => `/devices/${id(deviceId)}/configuration`,
    once: true,
    answer: VendorConfigurationSchema,
    what: 'device configuration',
    maps: (configuration) => toTelemetrySettings(configuration),
    about: (deviceId) => ({ operation: 'configuration', deviceId }),
  }),
  alarms: list({
    method: 'GET',
    path: ({ deviceId }: DeviceRange) => `/devices/${id(deviceId)}/alarms`,
    query: ({ startMs, endMs }) =>
      new URLSearchParams({
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(endMs).toISOString(),
      }),
    once: true,
    answer: VendorAlarmPageSchema,
    what: 'alarm list',
    items: (page) => page.alarms,
    maps: (alarm: VendorAlarm): DeviceAlarm | undefined => toDeviceAlarm(alarm),
    about: ({ deviceId }) => ({ operation: 'alarms', deviceId }),
  }),
  batch: change({
    method: 'POST',
    path: (_request: BatchRequest) => '/devices/commands',
    body: (request) => request,
    answer: VendorBatchSchema,
    maps: (answer, _request, _status, nowMs) => ({
      status: 202,
      value: {
        batchCommandId: answer.batchCommandId,
        timestamp: toUtc(answer.timestamp) ?? new Date(nowMs).toISOString(),
      },
    }),
    about: (request) => ({ operation: 'batch', deviceIds: request.devices }),
    refine: async (status, request, lookups) =>
      status === 422
        ? { outOfRange: await lookups.outOfRange(request.devices, request.command) }
        : {},
  }),
  batchCancel: change({
    method: 'PUT',
    path: (batchCommandId: string) => `/devices/commands/${id(batchCommandId)}/cancel`,
    once: true,
    answer: VendorBatchCancelSchema,
    maps: (answer, batchCommandId): Accepted<BatchCancelResponse> => ({
      status: 200,
      value: {
        batchCommandId,
        results: (answer.results ?? []).map((result): BatchCancelResult =>
          result.status === 'cancelled'
            ? {
                deviceId: result.deviceId,
                ...(result.commandId ? { commandId: result.commandId } : {}),
                success: true,
                status: 'cancelled',
              }
            : {
                deviceId: result.deviceId,
                ...(result.commandId ? { commandId: result.commandId } : {}),
                success: false,
                error: {
                  code: 'not_cancellable',
                  message: 'Not cancelled: the command has finished or could not be cancelled.',
                },
              },
        ),
      },
    }),
    about: () => ({ operation: 'batchCancel' }),
  }),
};

export function unreadable(what: string): ProblemError {
  return new ProblemError(
    502,
    'upstream_error',
    `The vendor's ${what} was unreadable. Try again in a moment; if it persists, report it to the vendor's support.`,
  );
}
