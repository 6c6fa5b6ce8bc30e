import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import type { CancellationReason } from '../vendor/schemas.ts';
import type { CommandEntity } from './command-entity.ts';
import { lackedControls } from './device-capability.ts';

/** How long a command waits for an offline device past its start (docs/upstream.md, Lifecycle). */
export const START_GRACE_MS = 60_000;

export interface DeviceCondition {
  online: boolean;
  fault: boolean;
  sinceMs: number;
}

const cancel = (
  command: CommandEntity,
  reason: CancellationReason,
  atMs: number,
): CommandEntity => ({
  ...command,
  status: 'cancelled',
  cancelledAtMs: atMs,
  cancelReason: reason,
});

/**
 * Moves one command through the lifecycle up to `nowMs`; `undefined` when nothing is due. The
 * vendor documents no triggers; these are the sandbox's (docs/upstream.md, Lifecycle). Each
 * transition is stamped with the instant it became due, not `nowMs`, so a clock jump over a whole
 * window still yields ordered timestamps. Callers run this before every condition change, so
 * `condition` held since the last call.
 */
export function advanceCommand(
  command: CommandEntity,
  device: Pick<FixtureDevice, 'lacks'>,
  condition: DeviceCondition,
  nowMs: number,
): CommandEntity | undefined {
  let current = command;
  if (current.status === 'received') {
    if (nowMs < current.startMs) return undefined;
    const dueMs = Math.max(current.startMs, current.receivedAtMs);
    if (lackedControls(device, current.powerControl).length > 0)
      return cancel(current, 'notSupported', dueMs);
    if (condition.fault) return cancel(current, 'deviceFault', Math.max(dueMs, condition.sinceMs));
    if (!condition.online) {
      const deadlineMs = Math.min(dueMs + START_GRACE_MS, current.endMs);
      return nowMs >= deadlineMs ? cancel(current, 'startTimeExpire', deadlineMs) : undefined;
    }
    current = {
      ...current,
      status: 'executing',
      startedAtMs: Math.min(Math.max(dueMs, condition.sinceMs), current.endMs),
    };
  }
  if (current.status === 'executing') {
    const startedAtMs = current.startedAtMs ?? current.startMs;
    const faultAtMs = Math.max(startedAtMs, condition.sinceMs);
    if (condition.fault && faultAtMs < current.endMs && faultAtMs <= nowMs)
      return cancel(current, 'deviceFault', faultAtMs);
    if (nowMs >= current.endMs)
      return { ...current, status: 'completed', completedAtMs: current.endMs };
  }
  return current === command ? undefined : current;
}
