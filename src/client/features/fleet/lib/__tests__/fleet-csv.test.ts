import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { testFleetJob } from '../../../../testing/fleet-jobs.ts';
import { fleetOutcomesCsv } from '../fleet-csv.ts';

describe('fleetOutcomesCsv', () => {
  it('has one row per device with its batch, command, status, reason and failure', () => {
    const csv = fleetOutcomesCsv(
      testFleetJob({
        state: 'completed',
        progress: {
          total: 3,
          sent: 2,
          received: 1,
          executing: 0,
          completed: 0,
          cancelled: {},
          failed: 1,
        },
        batches: [
          {
            index: 0,
            state: 'sent',
            batchCommandId: 'B-1',
            attempts: 1,
            devices: [
              { deviceId: 'D-1', commandId: 'C-1', status: 'received' },
              {
                deviceId: 'D-2',
                commandId: 'C-2',
                status: 'cancelled',
                cancelReason: 'notSupported',
              },
            ],
          },
          {
            index: 1,
            state: 'failed',
            attempts: 1,
            devices: [{ deviceId: 'D-3', failure: '=refused' }],
          },
        ],
      }),
    );
    const rows = Papa.parse<Record<string, string>>(csv, { header: true }).data;
    expect(rows.map((r) => [r.batch, r.deviceId, r.commandId, r.status, r.cancelReason])).toEqual([
      ['1', 'D-1', 'C-1', 'Received (pending)', ''],
      ['1', 'D-2', 'C-2', 'Cancelled', 'notSupported'],
      ['2', 'D-3', '', 'Failed', ''],
    ]);
    // A failure text that starts like a formula is escaped for spreadsheets.
    expect(rows[2]?.failure).toBe("'=refused");
  });
});
