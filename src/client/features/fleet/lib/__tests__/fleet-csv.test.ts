import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { testFleetJob } from '#client/testing/fleet-jobs.ts';
import { fleetOutcomesCsv } from '../fleet-csv.ts';

describe('fleetOutcomesCsv', () => {
  it("has one row per device with its batch, command, status in the page's words and failure", () => {
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
          unbound: 0,
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
      Date.parse('2026-01-01T00:00:00Z'),
    );
    const rows = Papa.parse<Record<string, string>>(csv, { header: true }).data;
    expect(rows.map((r) => [r.Batch, r.Device, r.Command, r.Status])).toEqual([
      ['1', 'D-1', 'C-1', 'Received (pending)'],
      ['1', 'D-2', 'C-2', 'Cancelled: The device does not support a requested control'],
      ['2', 'D-3', '', 'Failed'],
    ]);
    // A failure text that starts like a formula is escaped for spreadsheets.
    expect(rows[2]?.Failure).toBe("'=refused");
  });

  it("adds another feature's columns after its own, each device named with its command", () => {
    const job = testFleetJob({
      batches: [
        {
          index: 0,
          state: 'sent',
          batchCommandId: 'B-1',
          attempts: 1,
          devices: [{ deviceId: 'D-1', commandId: 'C-1', status: 'completed' }],
        },
        { index: 1, state: 'failed', attempts: 1, devices: [{ deviceId: 'D-1' }] },
      ],
    });
    const csv = fleetOutcomesCsv(job, Date.parse('2026-01-01T00:00:00Z'), {
      csvFields: ['Verdict', 'Share measured'],
      csvCells: (deviceId, commandId) => [`${deviceId} ${commandId ?? 'none'}`, '=90%'],
    });
    const [head, ...rows] = Papa.parse<string[]>(csv, { skipEmptyLines: true }).data;
    expect(head?.slice(-3)).toEqual(['Failure', 'Verdict', 'Share measured']);
    expect(rows.map((row) => row.slice(-2))).toEqual([
      ['D-1 C-1', "'=90%"],
      ['D-1 none', "'=90%"],
    ]);
  });
});
