/**
 * The table of change kinds (src/server/changes/change-kinds.ts): each step's adapter call, the
 * ledger intent it runs as, and the fingerprint stored with its ledger entry, which must stay the
 * one entries were written with so a retry of an earlier key still replays.
 */
import { describe, expect, it } from 'vitest';
import type { DeviceCommand } from '#domain/command.ts';
import type { ChangeStep } from '#domain/queued-change.ts';
import { fingerprintOf, type LedgerIntent } from '../../ledger/ledger-intent.ts';
import type { Session } from '../../session/session-store.ts';
import type { UpstreamApi } from '../../upstream/upstream-api.ts';
import { callOfStep, CHANGE_KINDS, kindOf, singleChange, stepOf } from '../change-kinds.ts';

const command = {
  powerControl: 'charge',
  powerW: 3000,
  startTime: '2026-12-01T10:00:00Z',
  endTime: '2026-12-01T11:00:00Z',
} as unknown as DeviceCommand;
const caller = { region: 'eu', clientId: 'client-1' } as unknown as Session;

const STEPS: Record<ChangeStep['call'], ChangeStep> = {
  submit: { call: 'submit', deviceId: 'BAT 1', command, idempotencyKey: 'k-submit' },
  cancel: { call: 'cancel', deviceId: 'BAT-1', commandId: 'CMD/1', idempotencyKey: 'k-cancel' },
  batch: {
    call: 'batch',
    batch: { devices: ['BAT-1', 'BAT-2'], command },
    idempotencyKey: 'k-batch',
  },
  batchCancel: {
    call: 'batchCancel',
    batchCommandId: 'BATCH-1',
    deviceIds: ['BAT-1', 'BAT-2'],
    idempotencyKey: 'k-batch-cancel',
  },
};

/** An upstream that records which of its calls was made, with what. */
function recordingUpstream() {
  const calls: unknown[][] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
      return Promise.resolve({ kind: 'accepted', status: 200, value: {} });
    };
  const upstream = {
    submit: record('submit'),
    cancel: record('cancel'),
    batch: record('batch'),
    batchCancel: record('batchCancel'),
  } as unknown as UpstreamApi;
  return { upstream, calls };
}

describe('the table of change kinds', () => {
  it("sends each step with the adapter's call of its kind, naming the browser's request", async () => {
    const { upstream, calls } = recordingUpstream();
    for (const step of Object.values(STEPS))
      await kindOf(step).send(upstream, caller, callOfStep(step), 'req-1');
    expect(calls).toEqual([
      ['submit', caller, 'BAT 1', command, 'req-1'],
      ['cancel', caller, { deviceId: 'BAT-1', commandId: 'CMD/1' }, 'req-1'],
      ['batch', caller, { devices: ['BAT-1', 'BAT-2'], command }, 'req-1'],
      ['batchCancel', caller, 'BATCH-1', 'req-1'],
    ]);
  });

  it('fingerprints each step as entries stored before the table were, so their keys still replay', () => {
    // Computed with the per-kind switches the table replaced; stored with existing ledger entries.
    const stored: Record<ChangeStep['call'], string> = {
      submit: 'xBm8uLO8n0BPRa4sX7yPC1Ipj3vIpmRsluqi6AREjAo',
      cancel: 'tJZ7_9jtwZC9Q29f-OOlV0dEgCq2irK20rcLLSwVEqc',
      batch: 'LwhZ47qOq5qppgeIct9ejey7FTUp3GpMQOgl_HjMsvU',
      batchCancel: 'b_djdUkT7W0DMRxdGO_iyeHANpgyMlZnFyA7XSXmqDs',
    };
    for (const step of Object.values(STEPS)) {
      const intent = CHANGE_KINDS[step.call].intent(callOfStep(step) as never, caller);
      expect(fingerprintOf(intent as LedgerIntent), step.call).toBe(stored[step.call]);
    }
    const undo = kindOf(STEPS.submit).intent(
      callOfStep({ ...STEPS.submit, deviceId: 'BAT-1' } as ChangeStep),
      caller,
    );
    expect(fingerprintOf({ ...undo, undoOf: 'key-1' } as LedgerIntent)).toBe(
      'siRVJUkOtWFeHUHv-HxuAcwRC24XvMZgnvOHtaHmIog',
    );
    // The ledger's own kinds keep theirs too.
    const site = (intent: object) => fingerprintOf({ session: caller, ...intent } as LedgerIntent);
    expect(site({ kind: 'bind', siteId: 'SITE-1' })).toBe(
      '2wcytC_gjFsgEVVV_MrnaHS2wkhAgoQO-fEbHQ3mmSE',
    );
    expect(site({ kind: 'unbind', siteId: 'SITE-1' })).toBe(
      'kWP4enNipp_azJwrz7QHajN0A2x8rXGToC6mKZ-FWvc',
    );
    expect(site({ kind: 'siteTimeZone', siteId: 'SITE-1', timeZone: 'Australia/Adelaide' })).toBe(
      'dNc48OkXo5IlJYM0W-Di-zEOobSNaJgt6DaIhYGy51Y',
    );
    expect(site({ kind: 'siteTimeZone', siteId: 'SITE-1', timeZone: null })).toBe(
      'Vuy_vLzLMikM0yO4e70mwOV5Hv_pAGyyr_KfL3QQRjE',
    );
  });

  it('makes a step of a call under its key, a batch cancel with the devices the ledger found', () => {
    for (const step of Object.values(STEPS)) {
      const deviceIds = step.call === 'batchCancel' ? step.deviceIds : [];
      expect(stepOf(callOfStep(step), step.idempotencyKey, deviceIds)).toEqual(step);
    }
  });

  it('queues a step naming what it undoes as an undo, except a batch, which is never undone', () => {
    expect(singleChange(STEPS.cancel, 'key-1')).toEqual({
      kind: 'undo',
      undoOf: 'key-1',
      steps: [STEPS.cancel],
    });
    expect(singleChange(STEPS.batch, 'key-1')).toEqual({ kind: 'batch', steps: [STEPS.batch] });
    for (const step of Object.values(STEPS))
      expect(singleChange(step, undefined)).toEqual({ kind: step.call, steps: [step] });
  });

  it('says which device a version is checked on and when a new window starts', () => {
    expect(
      Object.values(STEPS).map((step) => kindOf(step).versionedDevice(callOfStep(step))),
    ).toEqual(['BAT 1', 'BAT-1', undefined, undefined]);
    expect(Object.values(STEPS).map((step) => kindOf(step).windowStart(callOfStep(step)))).toEqual([
      command.startTime,
      undefined,
      command.startTime,
      undefined,
    ]);
  });
});
