import Papa from 'papaparse';
import type { FleetJob } from '#domain/fleet-job.ts';
import type { DeviceColumns } from '#client/lib/device-columns.ts';
import { deviceStatusWords } from './fleet-words.ts';

/**
 * A job's per-device outcomes as CSV (RFC 4180, CRLF) in the page's words ({@link deviceStatusWords}),
 * then the `added` columns (the verdicts) when given; formula-like cells escaped.
 */
export function fleetOutcomesCsv(
  job: FleetJob,
  nowMs: number,
  added?: Pick<DeviceColumns, 'csvFields' | 'csvCells'>,
): string {
  const fields = [
    'Batch',
    'Batch command',
    'Device',
    'Command',
    'Status',
    'Failure',
    ...(added?.csvFields ?? []),
  ];
  const data = job.batches.flatMap((batch) =>
    batch.devices.map((device) => [
      String(batch.index + 1),
      batch.batchCommandId ?? '',
      device.deviceId,
      device.commandId ?? '',
      deviceStatusWords(device, batch, job, nowMs),
      device.failure ?? '',
      ...(added?.csvCells(device.deviceId, device.commandId) ?? []),
    ]),
  );
  return Papa.unparse({ fields, data }, { newline: '\r\n', escapeFormulae: true });
}
