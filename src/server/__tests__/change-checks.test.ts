/**
 * The checks of a change's steps before anything is sent or queued (docs/architecture.md, BFF
 * surface: Checked before sending): an ended window, and a submission overlapping a command the
 * read model knows, unless the same change cancels that command first.
 */
import { describe, expect, it } from 'vitest';
import { StatusRecordSchema } from '#domain/command.ts';
import type { ChangeStep } from '#domain/queued-change.ts';
import { ProblemError } from '../http/problem.ts';
import { checkChangeSteps } from '../changes/change-checks.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const MINUTE = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();
const caller = { id: 'session', region: 'eu' as const, clientId: 'client', clientSecret: 'secret' };
const known = StatusRecordSchema.parse({
  id: 'cmd_known',
  deviceId: 'BAT-1',
  powerControl: { targetBatteryPowerW: 100 },
  startTime: at(10),
  endTime: at(40),
  status: 'received',
  receivedAt: at(0),
});
const submit = (startMin: number, endMin: number): Extract<ChangeStep, { call: 'submit' }> => ({
  call: 'submit',
  deviceId: 'BAT-1',
  command: {
    powerControl: { targetBatteryPowerW: 200 },
    startTime: at(startMin),
    endTime: at(endMin),
  },
  idempotencyKey: 'k',
});
const context = { nowMs: T0, known: async () => [known] };

async function refusal(steps: ChangeStep[]): Promise<ProblemError | undefined> {
  try {
    await checkChangeSteps(caller, steps, context);
    return undefined;
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
}

describe('the checks of a change before it is sent or queued', () => {
  it('refuses a submission overlapping a known command, naming it; touching windows pass', async () => {
    const problem = await refusal([submit(30, 50)]);
    expect(problem?.problem.status).toBe(409);
    expect(problem?.problem).toMatchObject({
      code: 'window_overlap',
      details: { conflictingCommandId: 'cmd_known', startTime: at(10), endTime: at(40) },
    });
    expect(problem?.problem.detail).toContain('command cmd_known of BAT-1');
    expect(await refusal([submit(40, 50)])).toBeUndefined();
  });

  it("lets a replace's new window overlap the command its own cancel ends first", async () => {
    const cancel: ChangeStep = {
      call: 'cancel',
      deviceId: 'BAT-1',
      commandId: 'cmd_known',
      idempotencyKey: 'k/1',
    };
    expect(await refusal([cancel, submit(20, 50)])).toBeUndefined();
  });

  it('refuses a submission or a batch whose window has already ended', async () => {
    const batch: ChangeStep = {
      call: 'batch',
      batch: { devices: ['BAT-1', 'BAT-2'], command: submit(-60, -1).command },
      idempotencyKey: 'b',
    };
    for (const steps of [[submit(-60, -1)], [submit(-60, 0)], [batch]]) {
      const problem = await refusal(steps);
      expect(problem?.problem.status).toBe(422);
      expect(problem?.problem.code).toBe('window_ended');
      expect(problem?.problem.detail).toContain('this window has already ended');
    }
    // Begun but not ended: the vendor starts it at once.
    expect(await refusal([submit(-60, 1)])).toBeUndefined();
  });
});
