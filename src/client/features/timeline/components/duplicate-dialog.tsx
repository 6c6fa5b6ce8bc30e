import { useMemo, useState } from 'react';
import type { StatusRecord } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import { useDeviceHistories } from '#client/commands/api/get-command-history.ts';
import { Dialog } from '#client/components/dialog.tsx';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import {
  checkCopies,
  dayOffsetWords,
  duplicateCopies,
  type CheckedCopy,
} from '../lib/copy-windows.ts';
import { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import type { RowTarget } from '../lib/timeline-types.ts';
import { windowInZone } from '../lib/window-words.ts';

const DAY_OFFSETS = [0, 1, 2, 3, 4, 5, 6, 7];

/** Overlap indexes built from read histories, once per history array. */
const indexes = new WeakMap<readonly StatusRecord[], DeviceOverlapIndex>();
function indexOfRecords(records: readonly StatusRecord[]): DeviceOverlapIndex {
  let index = indexes.get(records);
  if (!index) {
    index = new DeviceOverlapIndex(
      records.map((record) => ({
        id: record.id,
        status: record.status,
        startMs: Date.parse(record.startTime),
        endMs: Date.parse(record.endTime),
      })),
    );
    indexes.set(records, index);
  }
  return index;
}

/**
 * Duplicate a command to other devices and/or days; every copy is checked (capabilities, drag
 * rule, the other copies) and listed with its verdict before `onSend` gets those that passed.
 */
export function DuplicateDialog(props: {
  record: StatusRecord;
  source: RowTarget;
  sites: readonly Site[];
  /** The clock the windows are written on: the source site's, or UTC. */
  timeZone: string;
  nowMs: number;
  busy: boolean;
  onSend: (accepted: CheckedCopy[], refused: CheckedCopy[]) => void;
  onDismiss: () => void;
}) {
  const { record, source, timeZone } = props;
  const [deviceIds, setDeviceIds] = useState<ReadonlySet<string>>(
    () => new Set([source.device.deviceId]),
  );
  const [offsets, setOffsets] = useState<ReadonlySet<number>>(() => new Set([1]));
  const [filter, setFilter] = useState('');

  const allTargets = useMemo(
    () => props.sites.flatMap((site) => site.devices.map((device) => ({ site, device }))),
    [props.sites],
  );
  const targets = useMemo(
    () => allTargets.filter((target) => deviceIds.has(target.device.deviceId)),
    [allTargets, deviceIds],
  );
  const copies = useMemo(
    () => duplicateCopies(record, source, targets, [...offsets]),
    [record, source, targets, offsets],
  );
  const range = useMemo(
    () =>
      copies.length === 0
        ? null
        : {
            startMs: Math.min(...copies.map((copy) => copy.startMs)),
            endMs: Math.max(...copies.map((copy) => copy.endMs)),
          },
    [copies],
  );
  const targetIds = useMemo(() => targets.map((target) => target.device.deviceId), [targets]);
  const { devices } = useDeviceHistories(targetIds, range);
  const checking = devices.some((device) => device.isPending);
  const checked = useMemo(() => {
    const byDevice = new Map(devices.map((device) => [device.deviceId, device]));
    return checkCopies(
      copies,
      record.powerControl,
      props.nowMs,
      (deviceId) => {
        const history = byDevice.get(deviceId);
        return history && !history.isPending && !history.error
          ? indexOfRecords(history.commands)
          : undefined;
      },
      () => timeZone,
    );
  }, [copies, devices, record.powerControl, props.nowMs, timeZone]);
  const accepted = checked.filter((copy) => !copy.refusal);
  const refused = checked.filter((copy) => copy.refusal);

  const needle = filter.trim().toLowerCase();
  const shown = needle
    ? allTargets.filter(
        ({ site, device }) =>
          deviceIds.has(device.deviceId) ||
          [device.name, device.deviceId, site.name].some((text) =>
            text.toLowerCase().includes(needle),
          ),
      )
    : allTargets;
  const toggle = <T,>(set: ReadonlySet<T>, value: T, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };

  return (
    <Dialog
      title={`Duplicate command ${record.id}`}
      size="large"
      className="duplicate-dialog"
      onClose={props.onDismiss}
      actions={
        <>
          <button type="button" onClick={props.onDismiss}>
            Close
          </button>
          <button
            type="button"
            className="primary"
            disabled={checking || props.busy || accepted.length === 0}
            onClick={() => props.onSend(accepted, refused)}
          >
            {props.busy
              ? 'Sending…'
              : `Send ${accepted.length} ${accepted.length === 1 ? 'copy' : 'copies'}`}
          </button>
        </>
      }
    >
      <p>
        {describePowerControl(record.powerControl)},{' '}
        {windowInZone(Date.parse(record.startTime), Date.parse(record.endTime), timeZone)}, from{' '}
        {source.device.name}. Each copy is a command of its own, checked before anything is sent;
        days are counted on the clock of {source.site.name}.
      </p>
      <div className="duplicate-choices">
        <fieldset>
          <legend>Devices</legend>
          <label className="duplicate-filter">
            Filter{' '}
            <input
              type="search"
              value={filter}
              placeholder="Name, ID or site"
              onChange={(event) => setFilter(event.target.value)}
            />
          </label>
          <ul className="duplicate-devices">
            {shown.map(({ site, device }) => (
              <li key={device.deviceId}>
                <label>
                  <input
                    type="checkbox"
                    checked={deviceIds.has(device.deviceId)}
                    onChange={(event) =>
                      setDeviceIds(toggle(deviceIds, device.deviceId, event.target.checked))
                    }
                  />{' '}
                  {device.name}{' '}
                  <small>
                    ({device.deviceId}, {site.name})
                  </small>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <fieldset>
          <legend>Days</legend>
          <ul className="duplicate-days">
            {DAY_OFFSETS.map((days) => (
              <li key={days}>
                <label>
                  <input
                    type="checkbox"
                    checked={offsets.has(days)}
                    onChange={(event) => setOffsets(toggle(offsets, days, event.target.checked))}
                  />{' '}
                  {days === 0 ? 'Same day (other devices)' : dayOffsetWords(days)}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      </div>
      <h3 id="duplicate-copies-title">
        Copies ({checked.length}
        {checking ? ', checking…' : `: ${accepted.length} can be sent, ${refused.length} refused`})
      </h3>
      {checked.length === 0 ? (
        <p className="empty-state">
          Choose a device and a day: the same device needs another day, another device may take the
          same day.
        </p>
      ) : (
        <ul aria-labelledby="duplicate-copies-title" className="duplicate-copies">
          {checked.map((copy) => (
            <li key={`${copy.target.device.deviceId}-${copy.startMs}`}>
              <strong>{copy.label}</strong>: {windowInZone(copy.startMs, copy.endMs, timeZone)}
              {' — '}
              {checking ? (
                'checking…'
              ) : copy.refusal ? (
                <span className="ghost-refusal">{copy.refusal}</span>
              ) : (
                'can be sent'
              )}
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
