import { useState } from 'react';
import { Link } from 'react-router';
import { isCancellable, isEditableStatus, type StatusRecord } from '#domain/command.ts';
import type { Device } from '#domain/device.ts';
import { deviceHistoryPath } from '#client/lib/device-paths.ts';
import { Drawer } from '#client/components/drawer.tsx';
import { CancelConfirm } from './cancel-confirm.tsx';
import { StatusRecordList } from './status-record-list.tsx';

/**
 * The selected command in a drawer over the grid: its record, Cancel and Change while allowed
 * (or why not); closing returns focus to the bar it was opened from.
 */
export function DetailPanel(props: {
  record: StatusRecord;
  device: Device;
  siteId: string;
  timeZone: string;
  cancelling: boolean;
  cancelError: string | undefined;
  /** False when the operator's role may not schedule or cancel: neither button shows. */
  canChange: boolean;
  /** Why its window can no longer change (lib/edit-lock.ts), or undefined while it can. */
  editLockWords?: string | undefined;
  onCancel: () => void;
  onChange: () => void;
  onClose: () => void;
}) {
  const { record } = props;
  const [confirming, setConfirming] = useState(false);
  return (
    <Drawer
      title="Command details"
      closeLabel="Close details"
      className="timeline-details"
      onClose={props.onClose}
      actions={
        <>
          {props.canChange && isEditableStatus(record.status) && !props.editLockWords ? (
            <button type="button" onClick={props.onChange}>
              Change window or values
            </button>
          ) : null}
          {props.canChange && isCancellable(record.status) ? (
            <button
              type="button"
              className="danger"
              disabled={props.cancelling}
              onClick={() => setConfirming(true)}
            >
              {props.cancelling ? 'Cancelling…' : 'Cancel command'}
            </button>
          ) : null}
        </>
      }
    >
      <p>
        <strong>{props.device.name}</strong> ({props.device.deviceId})
      </p>
      <StatusRecordList record={record} timeZone={props.timeZone} />
      {props.canChange && isEditableStatus(record.status) && props.editLockWords ? (
        <p className="notice notice-warning">{props.editLockWords}</p>
      ) : null}
      <p>
        <Link to={deviceHistoryPath(props.siteId, props.device.deviceId)}>
          Command history of {props.device.deviceId}
        </Link>
      </p>
      {props.cancelError ? <p role="alert">{props.cancelError}</p> : null}
      {confirming ? (
        <CancelConfirm
          record={record}
          deviceName={props.device.name}
          timeZone={props.timeZone}
          onDismiss={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            props.onCancel();
          }}
        />
      ) : null}
    </Drawer>
  );
}
