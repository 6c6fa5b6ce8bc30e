import { isFinalStatus, type DeviceCommand } from '../../domain/command.ts';
import { findActiveOverlap } from '../../domain/overlap.ts';
import { toWindowMs } from '../../domain/time-window.ts';
import { toStatusRecord, type CommandEntity } from '../model/command-entity.ts';
import type { StateChange } from './persistence.ts';

/**
 * The received and executing commands, by ID and by device; final ones live in the store only.
 * Also keeps the earliest instant one of them may change, so the due-transition pass
 * (`due-transitions.ts`) can skip scanning them before it (large fixture).
 */
export class ActiveCommands {
  private active = new Map<string, CommandEntity>();
  private activeIdsByDevice = new Map<string, Set<string>>();
  private dueMs = -Infinity;

  /** Earliest instant an active command may change, epoch ms; `-Infinity` = scan next time. */
  get nextDueMs(): number {
    return this.dueMs;
  }

  /** Sets the earliest instant an active command may change, as a full scan found it. */
  planNextDue(dueMs: number): void {
    this.dueMs = dueMs;
  }

  /** Makes the next due-transition pass scan every command (a device's condition changed). */
  scanAllNextTime(): void {
    this.dueMs = -Infinity;
  }

  /** The active command with this ID, if any. */
  get(commandId: string): CommandEntity | undefined {
    return this.active.get(commandId);
  }

  /** A copy of every active command, safe to iterate while commands change. */
  snapshot(): CommandEntity[] {
    return [...this.active.values()];
  }

  /** Takes a new or changed command into memory and records it in `change` for the store. */
  put(command: CommandEntity, change: StateChange): void {
    this.remember(command);
    change.commands.set(command.id, command);
  }

  /**
   * The active command of the device whose window overlaps `window`, if any (spec 3.1 rule 2:
   * received and executing windows of one device never overlap).
   */
  overlapOf(deviceId: string, window: DeviceCommand) {
    const active = [...(this.activeIdsByDevice.get(deviceId) ?? [])]
      .map((id) => this.active.get(id))
      .filter((command): command is CommandEntity => command !== undefined)
      .map(toStatusRecord);
    return findActiveOverlap(toWindowMs(window), active);
  }

  /** Replaces the active commands with persisted ones; the next pass scans them all. */
  adopt(commands: CommandEntity[]): void {
    this.dueMs = -Infinity;
    this.active = new Map();
    this.activeIdsByDevice = new Map();
    for (const command of commands) this.remember(command);
  }

  /** Keeps an active command in memory, forgets a final one (the store has it). */
  private remember(command: CommandEntity): void {
    let ids = this.activeIdsByDevice.get(command.deviceId);
    if (isFinalStatus(command.status)) {
      this.active.delete(command.id);
      ids?.delete(command.id);
      return;
    }
    this.active.set(command.id, command);
    if (!ids) {
      ids = new Set();
      this.activeIdsByDevice.set(command.deviceId, ids);
    }
    ids.add(command.id);
    this.dueMs = Math.min(this.dueMs, command.startMs);
  }
}
