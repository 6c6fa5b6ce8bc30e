import { findActiveOverlap } from '#domain/overlap.ts';
import { toWindowMs, type TimeWindow } from '#domain/time-window.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { isActiveStatus } from '../vendor/schemas.ts';
import type { StateChange } from './persistence.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** Final commands live in the store only; `nextDueMs` lets the due pass skip scanning. */
export class ActiveCommands {
  private active = new Map<string, CommandEntity>();
  private activeIdsByDevice = new Map<string, Set<string>>();
  private dueMs = -Infinity;

  /** Epoch ms; `-Infinity` = scan next time. */
  get nextDueMs(): number {
    return this.dueMs;
  }

  planNextDue(dueMs: number): void {
    this.dueMs = dueMs;
  }

  scanAllNextTime(): void {
    this.dueMs = -Infinity;
  }

  get(commandId: string): CommandEntity | undefined {
    return this.active.get(commandId);
  }

  /** A copy, safe to iterate while commands change. */
  snapshot(): CommandEntity[] {
    return [...this.active.values()];
  }

  put(command: CommandEntity, change: StateChange): void {
    this.remember(command);
    change.commands.set(command.id, command);
  }

  /** Uses the project's one overlap rule, `findActiveOverlap` (docs/upstream.md, Lifecycle). */
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

  adopt(commands: CommandEntity[]): void {
    this.dueMs = -Infinity;
    this.active = new Map();
    this.activeIdsByDevice = new Map();
    for (const command of commands) this.remember(command);
  }

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
