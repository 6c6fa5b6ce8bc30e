import type {
  DeviceCommand,
  StatusRecord,
  SubmissionResponse,
} from '../../../../domain/command.ts';

/**
 * The steps of a replace (docs/upstream.md, Lifecycle: cancel, wait until cancelled, submit the
 * new one).
 */
export type ReplaceStep = 'cancelling' | 'waiting' | 'submitting';

/** The calls the replace sequence makes; injected so the sequence is testable without a server. */
export interface ReplaceCalls {
  cancel: (deviceId: string, commandId: string) => Promise<StatusRecord>;
  status: (deviceId: string, commandId: string) => Promise<StatusRecord>;
  submit: (deviceId: string, command: DeviceCommand) => Promise<SubmissionResponse>;
  /** Waits between status checks. */
  pause: (ms: number) => Promise<void>;
}

/** How a replace ended. `oldCancelled` says whether the old command is already gone. */
export type ReplaceOutcome =
  | { ok: true; submitted: SubmissionResponse }
  | { ok: false; failedStep: ReplaceStep; error: unknown; oldCancelled: boolean };

/** Attempts and spacing of the "wait until cancelled" step. */
export const REPLACE_WAIT = { attempts: 20, intervalMs: 500 };

/**
 * Replaces command `old` by `next` on the same device, the only way to change a command
 * (docs/upstream.md, Lifecycle): cancel, wait until its status reads `cancelled` (so the upstream
 * no longer counts it
 * as active and does not refuse the new window as overlapping), then submit. Never throws; the
 * outcome says which step failed and whether the old command is already cancelled, so the
 * operator can be offered to restore it.
 */
export async function replaceCommand(
  old: StatusRecord,
  next: DeviceCommand,
  calls: ReplaceCalls,
  onStep: (step: ReplaceStep) => void = () => {},
): Promise<ReplaceOutcome> {
  onStep('cancelling');
  let record: StatusRecord;
  try {
    record = await calls.cancel(old.deviceId, old.id);
  } catch (error) {
    return { ok: false, failedStep: 'cancelling', error, oldCancelled: false };
  }
  onStep('waiting');
  for (let attempt = 0; record.status !== 'cancelled'; attempt++) {
    if (attempt >= REPLACE_WAIT.attempts)
      return {
        ok: false,
        failedStep: 'waiting',
        error: new Error(`command ${old.id} is still ${record.status} after cancelling`),
        oldCancelled: false,
      };
    await calls.pause(REPLACE_WAIT.intervalMs);
    try {
      record = await calls.status(old.deviceId, old.id);
    } catch (error) {
      return { ok: false, failedStep: 'waiting', error, oldCancelled: false };
    }
  }
  onStep('submitting');
  try {
    return { ok: true, submitted: await calls.submit(old.deviceId, next) };
  } catch (error) {
    return { ok: false, failedStep: 'submitting', error, oldCancelled: true };
  }
}

/**
 * The command that restores a cancelled one: same control, same window (docs/upstream.md,
 * Commands).
 */
export function restoreCommand(old: StatusRecord): DeviceCommand {
  return { powerControl: old.powerControl, startTime: old.startTime, endTime: old.endTime };
}
