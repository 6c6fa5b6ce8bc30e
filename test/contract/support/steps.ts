import { expect } from 'vitest';
import type { ContractResponse } from './contract-http.ts';
import type { ContractTarget, Window } from './contract-target.ts';
import {
  StatusRecordSchema,
  SubmissionResponseSchema,
  type StatusRecord,
} from '../../../src/domain/command.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '../../../src/domain/power-control.ts';
import { ApiErrorBodySchema, type ApiErrorBody } from '../../../src/domain/errors.ts';
import {
  BatchSubmissionResponseSchema,
  type BatchSubmissionResponse,
} from '../../../src/domain/batch.ts';
import { SiteListSchema, type Device } from '../../../src/domain/device.ts';
import { HistoryResponseSchema } from '../../../src/domain/history.ts';

/**
 * A power control every demo device supports (docs/architecture.md, Upstream contract: -5000..5000
 * W).
 */
export const CHARGE_3KW: PowerControl = { targetBatteryPowerW: -3000 };

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Submits a command, expects 202 (spec 3.1 row 1), returns its ID. */
export async function submit(
  target: ContractTarget,
  deviceId: string,
  window: Window,
  powerControl: PowerControl = CHARGE_3KW,
): Promise<string> {
  const response = await target.upstream.submitCommand(deviceId, { powerControl, ...window });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const { id } = SubmissionResponseSchema.parse(response.body);
  target.track(deviceId, id);
  return id;
}

/** Submits a batch, expects 202, returns the response. */
export async function submitBatch(
  target: ContractTarget,
  devices: string[],
  window: Window,
  powerControl: PowerControl = CHARGE_3KW,
): Promise<BatchSubmissionResponse> {
  const response = await target.upstream.submitBatch({
    devices,
    command: { powerControl, ...window },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const batch = BatchSubmissionResponseSchema.parse(response.body);
  for (const { deviceId, id } of batch.commands) target.track(deviceId, id);
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
 * Expects an error response `{ code, message }` of that status and code (docs/architecture.md,
 * Upstream contract).
 */
export function expectError(
  response: ContractResponse,
  status: number,
  code: string,
): ApiErrorBody {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const body = ApiErrorBodySchema.parse(response.body);
  expect(body.code).toBe(code);
  return body;
}

/**
 * Expects 400 invalid_request whose message names `field` (docs/architecture.md, Upstream
 * contract).
 */
export function expectInvalidRequest(response: ContractResponse, field: string): ApiErrorBody {
  const body = expectError(response, 400, 'invalid_request');
  expect(body.message).toContain(field);
  return body;
}

/** The devices of the client's bound sites, from `GET /sites`. */
export async function boundDevices(target: ContractTarget): Promise<Device[]> {
  const response = await target.upstream.listSites();
  expect(response.status).toBe(200);
  return SiteListSchema.parse(response.body).sites.flatMap((site) => site.devices);
}

/** The first bound device that lacks a control, with that control (spec 7 row 4). */
export async function deviceLackingControl(
  target: ContractTarget,
): Promise<{ device: Device; property: PowerControlProperty } | undefined> {
  return (await boundDevices(target)).flatMap((device) =>
    POWER_CONTROL_PROPERTIES.filter((p) => device.capabilities[p] === undefined).map(
      (property) => ({ device, property }),
    ),
  )[0];
}

/**
 * IDs of the device's commands whose window meets the test's stretch of time, sorted. Tests
 * compare it before and after a refused request, so commands left by earlier runs on a real
 * vendor do not matter.
 */
export async function historyIds(target: ContractTarget, deviceId: string): Promise<string[]> {
  const response = await target.upstream.queryHistory(deviceId, {
    startTime: new Date(target.baseMs - HOUR_MS).toISOString(),
    endTime: new Date(target.baseMs + 10 * HOUR_MS).toISOString(),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return HistoryResponseSchema.parse(response.body)
    .commands.map((command) => command.id)
    .sort();
}

/** Epoch ms of an ISO timestamp, or `undefined`. */
export const ms = (timestamp: string | undefined) =>
  timestamp === undefined ? undefined : Date.parse(timestamp);
