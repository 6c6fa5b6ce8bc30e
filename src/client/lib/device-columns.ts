import type { ReactNode } from 'react';

/**
 * Columns one feature adds to another's device table and its CSV, composed by a route module so
 * features stay independent (the verdicts on the batch and fleet job pages). A device is named by
 * its ID and, where a page holds one device in several commands, the command's ID.
 */
export interface DeviceColumns {
  /** The table's heading of each added column, in order. */
  headings: readonly string[];
  /** One device's cells, one per heading. */
  cells: (deviceId: string, commandId?: string) => readonly ReactNode[];
  /** The CSV's headings of the added columns, in order. */
  csvFields: readonly string[];
  /** One device's CSV cells in words, one per CSV heading. */
  csvCells: (deviceId: string, commandId?: string) => readonly string[];
}
