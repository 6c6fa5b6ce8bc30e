import { describe, expect, it } from 'vitest';
import { operatorOf, operatorsFromEntries } from '../get-operators.ts';

describe('operators from the ledger', () => {
  it('names who submitted a command and who sent a batch, newest entry first', () => {
    const operators = operatorsFromEntries(
      [
        { kind: 'submit', clientId: 'demo-eu', operatorName: 'Ana', commandId: 'cmd-2' },
        { kind: 'submit', clientId: 'demo-eu', operatorName: 'Old', commandId: 'cmd-2' },
        {
          kind: 'batch',
          clientId: 'demo-eu',
          batchCommandId: 'batch-1',
          outcome: { commands: [{ deviceId: 'BAT-1', id: 'cmd-3' }] },
        },
        { kind: 'cancel', clientId: 'demo-eu', operatorName: 'Cy', commandId: 'cmd-9' },
      ],
      'BAT-1',
    );
    expect(operatorOf(operators, { id: 'cmd-2' })).toBe('Ana');
    expect(operatorOf(operators, { id: 'cmd-3' })).toBe('demo-eu');
    expect(operatorOf(operators, { id: 'cmd-4', batchCommandId: 'batch-1' })).toBe('demo-eu');
    expect(operatorOf(operators, { id: 'cmd-9' })).toBeUndefined();
  });
});
