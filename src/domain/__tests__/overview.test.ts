import { describe, expect, it } from 'vitest';
import type { Site } from '../device.ts';
import type { FleetJob } from '../fleet-job.ts';
import type { LedgerEntry } from '../ledger.ts';
import {
  buildOverview,
  factsFromLedger,
  needsAttention,
  OVERVIEW_SECTION_LIMIT,
  sectionOf,
  type CommandFact,
} from '../overview.ts';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const command = (startH: number, endH: number, extra: Partial<CommandFact> = {}): CommandFact => ({
  deviceId: 'BAT-1',
  commandId: `c${startH}`,
  startTime: iso(NOW + startH * HOUR),
  endTime: iso(NOW + endH * HOUR),
  ...extra,
});

describe('sectionOf', () => {
  it('puts a command whose window holds now under executing, status read or not', () => {
    expect(sectionOf(command(-1, 1), NOW)).toBe('executing');
    expect(sectionOf(command(-1, 1, { status: 'executing' }), NOW)).toBe('executing');
    expect(sectionOf(command(-1, 1, { status: 'received' }), NOW)).toBe('executing');
    // The window is [start, end): it starts at its start and is over at its end.
    expect(sectionOf(command(0, 1), NOW)).toBe('executing');
    expect(sectionOf(command(-1, 0), NOW)).toBeUndefined();
  });

  it('puts what starts within six hours under upcoming, and nothing later', () => {
    expect(sectionOf(command(6, 7), NOW)).toBe('upcoming');
    expect(sectionOf(command(6.01, 7), NOW)).toBeUndefined();
  });

  it('leaves out completed commands, even inside their window', () => {
    expect(sectionOf(command(-1, 1, { status: 'completed' }), NOW)).toBeUndefined();
  });

  it('keeps cancelled and refused commands for 24 hours after they ended', () => {
    const cancelled = (agoH: number) =>
      command(1, 2, { status: 'cancelled', endedAt: iso(NOW - agoH * HOUR) });
    expect(sectionOf(cancelled(24), NOW)).toBe('attention');
    expect(sectionOf(cancelled(24.01), NOW)).toBeUndefined();
    expect(sectionOf(command(1, 2, { refusal: 'No.', endedAt: iso(NOW) }), NOW)).toBe('attention');
  });

  it("sets an operator's cancel apart from what ended against the operator's will", () => {
    const ended = { status: 'cancelled' as const, endedAt: iso(NOW - HOUR) };
    // Cancel, undo, a replace's cancel and a fleet job's abort all end `manuallyCancel`.
    expect(sectionOf(command(1, 2, { ...ended, cancelReason: 'manuallyCancel' }), NOW)).toBe(
      'cancelledByOperator',
    );
    for (const cancelReason of [
      'deviceFault',
      'notSupported',
      'startTimeExpire',
      'timeWindowOverlap',
    ] as const)
      expect(sectionOf(command(1, 2, { ...ended, cancelReason }), NOW), cancelReason).toBe(
        'attention',
      );
    // A reason not known: nothing says an operator wanted it.
    expect(sectionOf(command(1, 2, ended), NOW)).toBe('attention');
    expect(sectionOf(command(1, 2, { refusal: 'It overlaps.', endedAt: ended.endedAt }), NOW)).toBe(
      'attention',
    );
  });

  it("needs attention for a batch's device whose command was never found, for 24 hours", () => {
    const missing = (agoH: number) =>
      command(-3, -agoH, { notFound: true, endedAt: iso(NOW - agoH * HOUR) });
    expect(sectionOf(missing(1), NOW)).toBe('attention');
    expect(sectionOf(missing(24.01), NOW)).toBeUndefined();
  });

  it('says which lines need attention: refusals, faults, partial batch failures', () => {
    expect(needsAttention({ refusal: 'No.' })).toBe(true);
    expect(needsAttention({ notFound: true })).toBe(true);
    expect(needsAttention({ status: 'cancelled', cancelReason: 'deviceFault' })).toBe(true);
    expect(needsAttention({ status: 'cancelled', cancelReason: 'manuallyCancel' })).toBe(false);
    expect(needsAttention({ status: 'executing' })).toBe(false);
  });
});

const entry = (id: number, fields: Partial<LedgerEntry>): LedgerEntry => ({
  id: String(id),
  kind: 'submit',
  state: 'succeeded',
  region: 'eu',
  clientId: 'demo-eu',
  createdAt: iso(NOW - HOUR),
  ...fields,
});
const window = { startTime: iso(NOW + HOUR), endTime: iso(NOW + 2 * HOUR) };
const powerControl = { targetBatteryPowerW: 1000 };

describe('factsFromLedger', () => {
  it('makes a command of each accepted submission and a refusal of each refused one', () => {
    const { commands } = factsFromLedger([
      entry(1, {
        deviceId: 'BAT-1',
        commandId: 'c1',
        ...window,
        request: { powerControl, ...window },
      }),
      entry(2, {
        deviceId: 'BAT-2',
        state: 'failed',
        ...window,
        outcome: { status: 409, error: { code: 'window_overlap', message: 'It overlaps.' } },
        completedAt: iso(NOW - 30_000),
      }),
      // Never left the BFF (no vendor status): no failure of a command.
      entry(3, {
        deviceId: 'BAT-3',
        state: 'failed',
        outcome: { error: { code: 'upstream_circuit_open', message: 'Closed.' } },
      }),
    ]);
    expect(commands).toEqual([
      { deviceId: 'BAT-1', commandId: 'c1', ledgerEntryId: '1', powerControl, ...window },
      {
        deviceId: 'BAT-2',
        ledgerEntryId: '2',
        powerControl: undefined,
        ...window,
        refusal: 'It overlaps.',
        endedAt: iso(NOW - 30_000),
      },
    ]);
  });

  it('marks a command cancelled by a cancel or a batch cancel as cancelled by an operator', () => {
    const { commands, batches } = factsFromLedger([
      entry(1, { deviceId: 'BAT-1', commandId: 'c1', ...window }),
      entry(2, {
        kind: 'batch',
        deviceIds: ['BAT-2', 'BAT-3'],
        batchCommandId: 'B1',
        ...window,
        outcome: { commands: [{ deviceId: 'BAT-2', id: 'c2' }] },
      }),
      entry(3, { kind: 'cancel', deviceId: 'BAT-1', commandId: 'c1', completedAt: iso(NOW) }),
      entry(4, {
        kind: 'batchCancel',
        batchCommandId: 'B1',
        completedAt: iso(NOW),
        outcome: { results: [{ deviceId: 'BAT-2', commandId: 'c2', success: true }] },
      }),
    ]);
    expect(commands.map((c) => [c.commandId, c.status, c.cancelReason, c.endedAt])).toEqual([
      ['c1', 'cancelled', 'manuallyCancel', iso(NOW)],
      ['c2', 'cancelled', 'manuallyCancel', iso(NOW)],
    ]);
    expect(batches).toMatchObject([{ batchCommandId: 'B1', cancelled: true, found: 1 }]);
  });

  it('counts a batch devices found, still looked for and never found', () => {
    const { batches } = factsFromLedger([
      entry(1, {
        kind: 'batch',
        deviceIds: ['A', 'B', 'C'],
        ...window,
        outcome: {
          commands: [{ deviceId: 'A', id: 'ca' }],
          unconfirmed: [
            { deviceId: 'B', state: 'confirming' },
            { deviceId: 'C', state: 'notFound' },
          ],
        },
      }),
    ]);
    expect(batches).toMatchObject([{ found: 1, confirming: 1, notFound: 1, cancelled: false }]);
  });

  it('makes a line of each batch device whose command was never found, ended with the window', () => {
    const { commands } = factsFromLedger([
      entry(1, {
        kind: 'batch',
        deviceIds: ['A', 'B', 'C'],
        batchCommandId: 'B1',
        ...window,
        request: { devices: ['A', 'B', 'C'], command: { powerControl, ...window } },
        outcome: {
          commands: [{ deviceId: 'A', id: 'ca' }],
          unconfirmed: [
            { deviceId: 'B', state: 'confirming' },
            { deviceId: 'C', state: 'notFound' },
          ],
        },
      }),
    ]);
    expect(commands.find((c) => c.deviceId === 'B')).toBeUndefined();
    expect(commands.find((c) => c.deviceId === 'C')).toEqual({
      deviceId: 'C',
      batchCommandId: 'B1',
      ledgerEntryId: '1',
      powerControl,
      ...window,
      notFound: true,
      endedAt: window.endTime,
    });
  });

  it('takes the status the BFF last read from the vendor, with its cancellation reason', () => {
    const { commands } = factsFromLedger(
      [entry(1, { deviceId: 'BAT-1', commandId: 'c1', ...window })],
      () => ({ status: 'cancelled', cancelReason: 'deviceFault', endedAt: iso(NOW) }),
    );
    expect(commands[0]).toMatchObject({ status: 'cancelled', cancelReason: 'deviceFault' });
  });
});

const site: Site = {
  siteId: 'PLANT-1',
  name: 'Harbour',
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred' },
  devices: [
    { deviceId: 'BAT-1', name: 'Hall A', model: 'm', capabilities: {} },
    { deviceId: 'BAT-2', name: 'Hall B', model: 'm', capabilities: {}, online: false },
    { deviceId: 'BAT-3', name: 'Hall C', model: 'm', capabilities: {}, faulted: true },
  ],
};

const job = (state: FleetJob['state'], createdAt: string): FleetJob =>
  ({
    jobId: '00000000-0000-4000-8000-00000000000' + (state === 'running' ? '1' : '2'),
    state,
    command: { powerControl, ...window },
    rollout: {},
    createdAt,
    updatedAt: createdAt,
    progress: {
      total: 2,
      sent: 1,
      received: 1,
      executing: 0,
      completed: 0,
      cancelled: {},
      unbound: 0,
      failed: 0,
    },
    batches: [],
  }) as unknown as FleetJob;

describe('buildOverview', () => {
  it('sorts each section and names each line device, site and zone', () => {
    const overview = buildOverview(
      {
        commands: [
          command(-1, 3, { commandId: 'late-end' }),
          command(-1, 2, { commandId: 'early-end' }),
          command(3, 4, { commandId: 'later' }),
          command(1, 4, { commandId: 'sooner', deviceId: 'BAT-9' }),
          command(1, 2, { status: 'cancelled', endedAt: iso(NOW - HOUR), commandId: 'old' }),
          command(1, 2, { status: 'cancelled', endedAt: iso(NOW), commandId: 'new' }),
          command(1, 2, {
            status: 'cancelled',
            cancelReason: 'manuallyCancel',
            endedAt: iso(NOW - 2 * HOUR),
            commandId: 'undone',
          }),
          command(1, 2, {
            status: 'cancelled',
            cancelReason: 'manuallyCancel',
            endedAt: iso(NOW),
            commandId: 'replaced',
          }),
        ],
        batches: [],
        fleetJobs: [],
        sites: [site],
      },
      NOW,
      'eu',
    );
    expect(overview.executing.map((c) => c.commandId)).toEqual(['early-end', 'late-end']);
    expect(overview.upcoming.map((c) => c.commandId)).toEqual(['sooner', 'later']);
    expect(overview.attention.map((c) => c.commandId)).toEqual(['new', 'old']);
    expect(overview.cancelledByOperator.map((c) => c.commandId)).toEqual(['replaced', 'undone']);
    expect(overview.counts).toMatchObject({ attention: 2, cancelledByOperator: 2 });
    expect(overview.executing[0]).toMatchObject({
      deviceName: 'Hall A',
      siteId: 'PLANT-1',
      siteName: 'Harbour',
      timeZone: 'Europe/Berlin',
    });
    // A device of no bound site keeps its ID only: the page shows it on UTC.
    expect(overview.upcoming[0]?.siteId).toBeUndefined();
  });

  it('leaves out a batch whose every device is over: its command final, or its site unbound', () => {
    const batchOf = (statusOfA: 'completed' | 'received') =>
      factsFromLedger(
        [
          entry(1, {
            kind: 'batch',
            deviceIds: ['BAT-1', 'BAT-2'],
            startTime: iso(NOW - HOUR),
            endTime: iso(NOW + HOUR),
            outcome: {
              commands: [
                { deviceId: 'BAT-1', id: 'c1' },
                { deviceId: 'BAT-2', id: 'c2' },
              ],
              unbound: [{ deviceId: 'BAT-2', lastStatus: 'received' }],
            },
          }),
        ],
        (_deviceId, commandId) => ({ status: commandId === 'c1' ? statusOfA : 'received' }),
      ).batches;
    const underWay = (statusOfA: 'completed' | 'received') =>
      buildOverview(
        { commands: [], batches: batchOf(statusOfA), fleetJobs: [], sites: [site] },
        NOW,
        'eu',
      ).batches.map((b) => b.ledgerEntryId);
    // As its batch page says: finished, one completed and one no longer followed.
    expect(underWay('completed')).toEqual([]);
    expect(underWay('received')).toEqual(['1']);
  });

  it('lists batches under way, not ended or cancelled ones, and fleet jobs not final', () => {
    const batch = (id: string, endH: number, cancelled = false) => ({
      ledgerEntryId: id,
      startTime: iso(NOW - HOUR),
      endTime: iso(NOW + endH * HOUR),
      deviceIds: ['BAT-1', 'BAT-2'],
      found: 2,
      confirming: 0,
      notFound: 0,
      cancelled,
    });
    const overview = buildOverview(
      {
        commands: [],
        batches: [batch('1', 1), batch('2', 0), batch('3', 1, true)],
        fleetJobs: [job('running', iso(NOW)), job('completed', iso(NOW))],
        sites: [site],
      },
      NOW,
      'eu',
    );
    expect(overview.batches).toMatchObject([{ ledgerEntryId: '1', siteId: 'PLANT-1', devices: 2 }]);
    expect(overview.fleetJobs.map((j) => j.state)).toEqual(['running']);
  });

  it('lists offline and faulted sites and devices', () => {
    const overview = buildOverview(
      {
        commands: [],
        batches: [],
        fleetJobs: [],
        sites: [{ ...site, faulted: true }],
      },
      NOW,
      'eu',
    );
    expect(overview.trouble.map((t) => [t.deviceId, t.offline, t.faulted])).toEqual([
      [undefined, false, true],
      ['BAT-2', true, false],
      ['BAT-3', false, true],
    ]);
  });

  it('answers at most the section limit, with the full count beside it', () => {
    const many = Array.from({ length: OVERVIEW_SECTION_LIMIT + 5 }, (_, i) =>
      command(-1, 1, { commandId: `c${i}` }),
    );
    const overview = buildOverview(
      { commands: many, batches: [], fleetJobs: [], sites: [] },
      NOW,
      'eu',
    );
    expect(overview.executing).toHaveLength(OVERVIEW_SECTION_LIMIT);
    expect(overview.counts.executing).toBe(OVERVIEW_SECTION_LIMIT + 5);
  });
});
