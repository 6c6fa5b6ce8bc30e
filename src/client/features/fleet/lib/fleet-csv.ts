import Papa from 'papaparse';
import type { FleetJob } from '../../../../domain/fleet-job.ts';
import { deviceStatusWords } from './fleet-words.ts';

/**
 * The per-device outcomes of a job as CSV (RFC 4180, CRLF), one row per device, in the words the
 * job page shows: its batch, the batch command, the device, its command, its status (with the
 * cancellation reason, or where the search for its command stands, as on the page:
 * {@link deviceStatusWords}) and why it failed. `nowMs` is when the job was read, as for the
 * page. Cells that a spreadsheet would read as a formula are escaped.
 */
export function fleetOutcomesCsv(job: FleetJob, nowMs: number): string {
  const fields = ['Batch', 'Batch command', 'Device', 'Command', 'Status', 'Failure'];
  const data = job.batches.flatMap((batch) =>
    batch.devices.map((device) => [
      String(batch.index + 1),
      batch.batchCommandId ?? '',
      device.deviceId,
      device.commandId ?? '',
      deviceStatusWords(device, batch, job, nowMs),
      device.failure ?? '',
    ]),
  );
  return Papa.unparse({ fields, data }, { newline: '\r\n', escapeFormulae: true });
}
