import Papa from 'papaparse';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '../../../../domain/words.ts';
import type { FleetJob } from '../../../../domain/fleet-job.ts';

/**
 * The per-device outcomes of a job as CSV (RFC 4180, CRLF), one row per device: its batch, the
 * batch command ID, the device command ID, the last status read, the cancellation reason and why
 * it failed. Cells that a spreadsheet would read as a formula are escaped.
 */
export function fleetOutcomesCsv(job: FleetJob): string {
  const fields = [
    'batch',
    'batchCommandId',
    'deviceId',
    'commandId',
    'status',
    'cancelReason',
    'cancelReasonWords',
    'failure',
  ];
  const data = job.batches.flatMap((batch) =>
    batch.devices.map((device) => [
      String(batch.index + 1),
      batch.batchCommandId ?? '',
      device.deviceId,
      device.commandId ?? '',
      device.status ? COMMAND_STATUS_WORDS[device.status] : device.failure ? 'Failed' : 'Not sent',
      device.cancelReason ?? '',
      device.cancelReason ? CANCELLATION_REASON_WORDS[device.cancelReason] : '',
      device.failure ?? '',
    ]),
  );
  return Papa.unparse({ fields, data }, { newline: '\r\n', escapeFormulae: true });
}
