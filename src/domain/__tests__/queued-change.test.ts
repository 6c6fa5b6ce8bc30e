import { describe, expect, it } from 'vitest';
import {
  QueuedChangeSchema,
  devicesOfChange,
  queuedBatchCancelOf,
  type QueuedChangeStatus,
  stepIdempotencyKey,
  type QueuedChange,
} from '../queued-change.ts';

const command = {
  powerControl: { targetBatteryPowerW: 1000 },
  startTime: '2026-12-01T10:00:00Z',
  endTime: '2026-12-01T11:00:00Z',
};
const cancel = (deviceId: string) => ({
  call: 'cancel' as const,
  deviceId,
  commandId: 'cmd_1',
  idempotencyKey: 'k/1',
});
const submit = (deviceId: string) => ({
  call: 'submit' as const,
  deviceId,
  command,
  idempotencyKey: 'k/2',
});

describe('QueuedChangeSchema', () => {
  it('takes a replace as a cancel then a submission of one device', () => {
    const replace = { kind: 'replace', steps: [cancel('BAT-1'), submit('BAT-1')] };
    expect(QueuedChangeSchema.parse(replace)).toEqual(replace);
  });

  it('refuses a replace across two devices or in the wrong order', () => {
    expect(
      QueuedChangeSchema.safeParse({ kind: 'replace', steps: [cancel('BAT-1'), submit('BAT-2')] })
        .success,
    ).toBe(false);
    expect(
      QueuedChangeSchema.safeParse({ kind: 'replace', steps: [submit('BAT-1'), cancel('BAT-1')] })
        .success,
    ).toBe(false);
  });

  it('takes an undo of each kind of change, naming the change it undoes', () => {
    for (const steps of [
      [cancel('BAT-1')],
      [submit('BAT-1')],
      [cancel('BAT-1'), submit('BAT-1')],
      [
        {
          call: 'batchCancel',
          batchCommandId: 'b_1',
          deviceIds: ['BAT-1', 'BAT-2'],
          idempotencyKey: 'u',
        },
      ],
    ])
      expect(QueuedChangeSchema.safeParse({ kind: 'undo', undoOf: 'k', steps }).success).toBe(true);
    expect(QueuedChangeSchema.safeParse({ kind: 'undo', steps: [cancel('BAT-1')] }).success).toBe(
      false,
    );
  });
});

describe('devicesOfChange', () => {
  it('names each device once, a batch all of its devices', () => {
    const batch: QueuedChange = {
      kind: 'batch',
      steps: [
        { call: 'batch', batch: { devices: ['BAT-2', 'BAT-1'], command }, idempotencyKey: 'b' },
      ],
    };
    expect(devicesOfChange(batch)).toEqual(['BAT-2', 'BAT-1']);
    expect(devicesOfChange({ kind: 'replace', steps: [cancel('BAT-1'), submit('BAT-1')] })).toEqual(
      ['BAT-1'],
    );
  });
});

describe('stepIdempotencyKey', () => {
  it('keeps the key of a one-step change and numbers the steps of a longer one', () => {
    expect(stepIdempotencyKey('abc', 0, 1)).toBe('abc');
    expect([0, 1].map((i) => stepIdempotencyKey('abc', i, 2))).toEqual(['abc/1', 'abc/2']);
    expect(() => stepIdempotencyKey('x'.repeat(254), 1, 2)).toThrow(RangeError);
  });
});

describe('queuedBatchCancelOf', () => {
  const batchCancel = (
    state: QueuedChangeStatus['state'],
    stepState: 'waiting' | 'sent' = 'waiting',
  ): QueuedChangeStatus => ({
    id: `chg_${state}`,
    kind: 'batchCancel',
    state,
    deviceIds: ['BAT-1', 'BAT-2'],
    steps: [
      {
        call: 'batchCancel',
        batchCommandId: 'batch_1',
        deviceIds: ['BAT-1', 'BAT-2'],
        state: stepState,
        plannedAt: '2026-12-01T09:01:00Z',
      },
    ],
    createdAt: '2026-12-01T09:00:00Z',
    updatedAt: '2026-12-01T09:00:00Z',
  });

  it('finds the waiting batch cancel of the batch, with when it goes and whether it may be withdrawn', () => {
    expect(queuedBatchCancelOf([batchCancel('queued')], 'batch_1')).toEqual({
      change: batchCancel('queued'),
      goesAt: '2026-12-01T09:01:00Z',
      withdrawable: true,
    });
    expect(queuedBatchCancelOf([batchCancel('sending')], 'batch_1')?.withdrawable).toBe(false);
  });

  it('finds none for another batch, or once the cancel went or ended', () => {
    expect(queuedBatchCancelOf([batchCancel('queued')], 'batch_2')).toBeUndefined();
    expect(queuedBatchCancelOf([batchCancel('sent', 'sent')], 'batch_1')).toBeUndefined();
    expect(queuedBatchCancelOf([batchCancel('withdrawn')], 'batch_1')).toBeUndefined();
  });
});
