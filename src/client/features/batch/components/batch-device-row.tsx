import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { endedBeforeUnbind } from '#domain/batch.ts';
import type { BatchDeviceView, BatchDeviceWords } from '../lib/device-actions.ts';

/** One device of the batch: checkbox, ID linking to its page, and {@link batchDeviceWords} (as its CSV row). */
export function BatchDeviceRow({
  view,
  words,
  chosen,
  onToggle,
  showOutcome,
  devicePath,
  historyPath,
  addedCells = [],
}: {
  view: BatchDeviceView;
  words: BatchDeviceWords;
  chosen: boolean;
  onToggle: () => void;
  showOutcome: boolean;
  devicePath: string | undefined;
  historyPath: string | undefined;
  /** Cells of columns another feature adds (the verdict), after the reason; the last cancel stays last. */
  addedCells?: readonly ReactNode[] | undefined;
}) {
  const { device, record } = view;
  // A command that ended before its site was unbound shows as it ended.
  const shownStatus =
    record?.status ??
    (device.kind === 'unbound' && device.lastStatus && endedBeforeUnbind(device)
      ? device.lastStatus
      : undefined);
  return (
    <tr data-device={device.deviceId}>
      <td>
        <input
          type="checkbox"
          checked={chosen}
          onChange={onToggle}
          aria-label={`Select ${device.deviceId}`}
        />
      </td>
      <th scope="row">
        {devicePath ? (
          <Link className="mono" to={devicePath}>
            {device.deviceId}
          </Link>
        ) : (
          <span className="mono">{device.deviceId}</span>
        )}
        {historyPath ? (
          <>
            {' '}
            <Link to={historyPath} aria-label={`History of ${device.deviceId}`}>
              History
            </Link>
          </>
        ) : null}
      </th>
      <td
        className={
          device.kind === 'found' || (device.kind === 'unbound' && device.commandId)
            ? 'mono'
            : undefined
        }
      >
        {words.command}
      </td>
      <td>
        <span className={shownStatus ? `status status-${shownStatus}` : 'status'}>
          {words.status}
        </span>
      </td>
      <td>{words.reason}</td>
      {addedCells.map((cell, index) => (
        <td key={index}>{cell}</td>
      ))}
      {showOutcome ? <td>{words.outcome}</td> : null}
    </tr>
  );
}
