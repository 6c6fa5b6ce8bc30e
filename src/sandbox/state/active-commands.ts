import { findActiveOverlap } from '../../domain/overlap.ts';
import { toWindowMs, type TimeWindow } from '../../domain/time-window.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { isActiveStatus } from '../vendor/schemas.ts';
import type { StateChange } from './persistence.ts';

const iso = (ms: number) => new Date(ms).toISOString();

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
   * The active command of the device whose window overlaps `window`, if any (docs/upstream.md,
   * Lifecycle: received and executing windows of one device never overlap; the project's one
   * overlap rule, `findActiveOverlap`).
   */
  overlapOf(deviceId: string, window: TimeWindow): CommandEntity | undefined {
    const active = [...(this.activeIdsByDevice.get(deviceId) ?? [])]
      .map((id) => this.active.get(id))
      .filter((command): command is CommandEntity => command !== undefined)
      .map((command) => ({
        command,
        status: command.status,
        startTime: iso(command.startMs),
        endTime: iso(command.endMs),
      }));
    return findActiveOverlap(toWindowMs(window), active)?.command;
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
    if (!isActiveStatus(command.status)) {
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
