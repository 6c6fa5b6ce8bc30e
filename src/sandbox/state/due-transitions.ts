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
    const next = advanceCommand(command, device, conditions.of(device), nowMs);
    if (next) active.put(next, change);
    const current = next ?? command;
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
