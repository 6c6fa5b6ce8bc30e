import { expect } from 'vitest';
import type { ContractResponse } from './contract-http.ts';
import type { ContractTarget, Window } from './contract-target.ts';
import {
  BatchAcceptedSchema,
  DeviceListSchema,
  ErrorBodySchema,
  HistoryPageSchema,
  StatusRecordSchema,
  SubmissionAnswerSchema,
  type BatchAccepted,
  type Device,
  type ErrorBody,
  type PowerControl,
  type StatusRecord,
} from '#sandbox/vendor/schemas.ts';

/** A power control every demo device takes: 3 kW charge, inside -5000..5000 W. */
export const CHARGE_3KW: PowerControl = { targetBatteryPowerW: -3000 };

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** Submits a command, expects 202, returns its ID. */
export async function submit(
  target: ContractTarget,
  deviceId: string,
  window: Window,
  powerControl: PowerControl = CHARGE_3KW,
): Promise<string> {
  const response = await target.upstream.submitCommand(deviceId, { powerControl, ...window });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const { id } = SubmissionAnswerSchema.parse(response.body);
  target.track(deviceId, id);
  return id;
}

/** Submits a batch, expects 202, returns the answer (which names no device command). */
export async function submitBatch(
  target: ContractTarget,
  devices: string[],
  window: Window,
  powerControl: PowerControl = CHARGE_3KW,
): Promise<BatchAccepted> {
  const response = await target.upstream.submitBatch({
    devices,
    command: { powerControl, ...window },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const batch = BatchAcceptedSchema.parse(response.body);
  target.trackBatch(batch.batchCommandId);
  return batch;
}

/** Reads a command's status record, expecting 200. */
export async function statusOf(
  target: ContractTarget,
  deviceId: string,
  commandId: string,
): Promise<StatusRecord> {
  const response = await target.upstream.queryStatus(deviceId, commandId);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return StatusRecordSchema.parse(response.body);
}

/**
 * Expects an error `{ errorCode, message, timestamp }` of that status and code (docs/upstream.md,
 * Errors).
 */
export function expectError(
  response: ContractResponse,
  status: number,
  errorCode: string,
): ErrorBody {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const body = ErrorBodySchema.parse(response.body);
  expect(body.errorCode).toBe(errorCode);
  return body;
}

/** Expects 400 `INVALID_REQUEST` whose message names `field`. */
export function expectInvalidRequest(response: ContractResponse, field: string): ErrorBody {
  const body = expectError(response, 400, 'INVALID_REQUEST');
  expect(body.message).toContain(field);
  return body;
}

/** The devices of the client's bound sites, every page of `GET /devices` read. */
export async function boundDevices(target: ContractTarget): Promise<Device[]> {
  const devices: Device[] = [];
  for (let page = 1; ; page += 1) {
    const response = await target.upstream.listDevices({ page: String(page), size: '500' });
    expect(response.status).toBe(200);
    const list = DeviceListSchema.parse(response.body);
    devices.push(...list.devices);
    if (list.devices.length === 0 || devices.length >= list.total) return devices;
  }
}

/**
 * The device's status records whose window meets `[fromMs, toMs)`, every page read, by start.
 */
export async function historyOf(
  target: ContractTarget,
  deviceId: string,
  fromMs = target.baseMs - HOUR_MS,
  toMs = target.baseMs + 10 * HOUR_MS,
  status?: string,
): Promise<StatusRecord[]> {
  const records: StatusRecord[] = [];
  for (let page = 1; ; page += 1) {
    const response = await target.upstream.queryHistory(deviceId, {
      startTime: iso(fromMs),
      endTime: iso(toMs),
      page: String(page),
      size: '500',
      ...(status ? { status } : {}),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const history = HistoryPageSchema.parse(response.body);
    records.push(...history.commands);
    if (history.commands.length === 0 || records.length >= history.total) return records;
  }
}

/**
 * IDs of the device's commands whose window meets the test's stretch of time, sorted. Tests
 * compare it before and after a refused request, so commands left by earlier runs on a real
 * vendor do not matter.
 */
export async function historyIds(target: ContractTarget, deviceId: string): Promise<string[]> {
  return (await historyOf(target, deviceId)).map((command) => command.id).sort();
}

/**
 * The commands a batch gave a device, found in the device's history as the BFF finds them
 * (docs/upstream.md, Batches): same window, received no earlier than the batch's answer says.
 */
export async function batchCommandsOf(
  target: ContractTarget,
  deviceId: string,
  window: Window,
  batch: BatchAccepted,
): Promise<StatusRecord[]> {
  const startMs = Date.parse(window.startTime);
  const endMs = Date.parse(window.endTime);
  return (await historyOf(target, deviceId, startMs, endMs)).filter(
    (command) =>
      Date.parse(command.startTime) === startMs &&
      Date.parse(command.endTime) === endMs &&
      Date.parse(command.receivedAt) >= Date.parse(batch.timestamp) - SECOND_MS,
  );
}

/** Epoch ms of an ISO timestamp, or `undefined`. */
export const ms = (timestamp: string | undefined) =>
  timestamp === undefined ? undefined : Date.parse(timestamp);
