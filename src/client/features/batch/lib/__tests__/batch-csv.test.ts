import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { batchDevicesCsv } from '../batch-csv.ts';

const rows = [
  { device: 'BAT-1', command: 'cmd_1', status: 'Completed', reason: '', outcome: '' },
  { device: 'BAT-2', command: 'cmd_2', status: 'Cancelled', reason: '', outcome: 'Cancelled' },
];

describe('batchDevicesCsv', () => {
  it("heads the table's columns as the page does", () => {
    const [head] = Papa.parse<string[]>(batchDevicesCsv(rows)).data;
    expect(head).toEqual(['Device', 'Command', 'Status', 'Reason', 'Last cancel']);
  });

  it("adds another feature's columns (the verdicts) after the reason, the last cancel last", () => {
    const csv = batchDevicesCsv(rows, {
      csvFields: ['Verdict', 'Delivered (kWh, discharge positive)'],
      csvCells: (deviceId) =>
        deviceId === 'BAT-1' ? ['Delivered', '4.9'] : ['No verdict yet', ''],
    });
    expect(Papa.parse<string[]>(csv, { skipEmptyLines: true }).data).toEqual([
      [
        'Device',
        'Command',
        'Status',
        'Reason',
        'Verdict',
        'Delivered (kWh, discharge positive)',
        'Last cancel',
      ],
      ['BAT-1', 'cmd_1', 'Completed', '', 'Delivered', '4.9', ''],
      ['BAT-2', 'cmd_2', 'Cancelled', '', 'No verdict yet', '', 'Cancelled'],
    ]);
  });
});
