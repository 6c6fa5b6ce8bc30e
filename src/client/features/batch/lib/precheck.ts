import type { StatusRecord } from '#domain/command.ts';
import type { Device } from '#domain/device.ts';
import { findActiveOverlap } from '#domain/overlap.ts';
import type { PowerControlProperty } from '#domain/power-control.ts';
import type { CommandDraft } from '#client/commands/lib/command-form-values.ts';

/** What the pre-check foresees for one device of the batch. */
export type PrecheckFinding =
  /** An active command's window overlaps: the upstream cancels this device's command at once. */
  | { kind: 'overlap'; command: StatusRecord }
  /** Lacks requested controls: its command will end `notSupported` (docs/upstream.md, Lifecycle). */
  | { kind: 'notSupported'; properties: PowerControlProperty[] }
  /** The device is offline: past start plus grace its command ends `startTimeExpire`. */
  | { kind: 'offline' }
  /** The vendor reports the device faulted: its command may end `deviceFault`. */
  | { kind: 'faulted' };

/** The draft the pre-check reads: what the command form holds so far (controls set, window). */
export type PrecheckDraft = CommandDraft;

/**
 * The findings for one device: offline, faulted, lacking a control, and the first active command
 * overlapping the window (`findActiveOverlap`; the batch would cancel it, docs/upstream.md,
 * Lifecycle). `batchCommandId`: the batch's own command is no overlap.
 */
export function precheckDevice(
  device: Device,
  draft: PrecheckDraft,
  commands: readonly StatusRecord[] | undefined,
  batchCommandId?: string,
): PrecheckFinding[] {
  const findings: PrecheckFinding[] = [];
  if (draft.window && commands) {
    const command = findActiveOverlap(draft.window, commands, { batchCommandId });
    if (command) findings.push({ kind: 'overlap', command });
  }
  const lacking = draft.properties.filter((p) => device.capabilities[p] === undefined);
  if (lacking.length > 0) findings.push({ kind: 'notSupported', properties: lacking });
  if (device.online === false) findings.push({ kind: 'offline' });
  if (device.faulted === true) findings.push({ kind: 'faulted' });
  return findings;
}
