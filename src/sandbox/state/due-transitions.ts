import { FAULT_AFTER_START_MS } from '../model/behaviours.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { advanceCommand, START_GRACE_MS } from '../model/lifecycle.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

/**
 * Runs every lifecycle transition due by the sandbox's now ({@link advanceCommand};
 * docs/upstream.md, Lifecycle), recording the changed commands in `change`. Runs before every
 * operation and on every admin clock move or device condition change, so wall time passing moves
 * commands too. Skips the scan while now is before the
 * earliest instant an active command may change, and sets that instant for the next call: the end
 * of an executing window, the start of a received one, or, once its start has passed, the end of
 * its start grace (an offline device gets `START_GRACE_MS`, never beyond the window's end).
 */
export function advanceDueCommands(memory: StateMemory, change: StateChange): void {
  const { active, catalog, conditions } = memory;
  const nowMs = memory.clock.now();
  if (nowMs < active.nextDueMs) return;
  let nextDueMs = Infinity;
  for (const command of active.snapshot()) {
    const device = catalog.device(command.deviceId);
    if (!device) continue;
    let next = advanceCommand(command, device, conditions.of(device), nowMs);
    // A clock move may carry the command past its end in one go: its fault came before that.
    const executed = next?.status === 'completed' ? reopened(next) : (next ?? command);
    const faultAtMs = seededFaultAt(memory, executed);
    if (faultAtMs !== undefined && faultAtMs <= nowMs) {
      // The device faults mid-command: the condition changes at that instant, and the lifecycle
      // cancels the command `deviceFault` then, as for an admin fault.
      const condition = { online: conditions.of(device).online, fault: true, sinceMs: faultAtMs };
      conditions.set(device.deviceId, condition);
      change.deviceConditions.push({ deviceId: device.deviceId, ...condition });
      next = advanceCommand(executed, device, condition, nowMs) ?? next;
    }
    if (next) active.put(next, change);
    const current = next ?? command;
    if (faultAtMs !== undefined && faultAtMs > nowMs) nextDueMs = Math.min(nextDueMs, faultAtMs);
    if (current.status === 'executing') nextDueMs = Math.min(nextDueMs, current.endMs);
    else if (current.status === 'received')
      nextDueMs = Math.min(
        nextDueMs,
        current.startMs > nowMs
          ? current.startMs
          : Math.min(
              Math.max(current.startMs, current.receivedAtMs) + START_GRACE_MS,
              current.endMs,
            ),
      );
  }
  active.planNextDue(nextDueMs);
}

/** The command as it was while executing, before it completed. */
function reopened(command: CommandEntity): CommandEntity {
  return { ...command, status: 'executing', completedAtMs: undefined };
}

/**
 * When a `faultsDuringCommand` device faults during `command` (src/sandbox/README.md,
 * Behaviours): {@link FAULT_AFTER_START_MS} after it started, if that is inside its window and
 * the device is not faulted already; otherwise `undefined`.
 */
function seededFaultAt(memory: StateMemory, command: CommandEntity): number | undefined {
  if (command.status !== 'executing' || command.startedAtMs === undefined) return undefined;
  const device = memory.catalog.device(command.deviceId);
  if (!device || memory.telemetry.behaviourOf(device) !== 'faultsDuringCommand') return undefined;
  if (memory.conditions.of(device).fault) return undefined;
  const faultAtMs = command.startedAtMs + FAULT_AFTER_START_MS;
  return faultAtMs < command.endMs ? faultAtMs : undefined;
}
