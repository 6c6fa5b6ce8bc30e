import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../events/event-store.ts';
import { EventStream, MAX_STREAM_BUFFER_BYTES } from '../events/event-stream.ts';
import { personKey } from '#domain/account.ts';

const account = { region: 'eu', clientId: 'client' } as const;
const alice = personKey({ kind: 'named', name: 'Alice' });

function streamFor(person = alice) {
  const closed: EventStream[] = [];
  const stream = new EventStream({
    account,
    person,
    sessionHash: 'hash',
    sessionDeadlineMs: Date.parse('2026-05-01T10:30:00Z'),
    onClose: (s) => closed.push(s),
  });
  return { stream, closed };
}

function event(id: number, deviceIds = ['BAT-1'], recipient: string | null = null): StoredEvent {
  return {
    id,
    account,
    recipient,
    event: { type: 'deviceCommandsChanged', data: { deviceIds } },
    createdAtMs: Date.parse('2026-05-01T10:00:00Z'),
  };
}

/** What the stream has written so far (its body is not consumed, as with a stalled browser). */
function written(stream: EventStream): string {
  const chunks: Buffer[] = [];
  let chunk: Buffer | null;
  while ((chunk = stream.body.read() as Buffer | null) !== null) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('one event stream', () => {
  it('holds live events while it replays, then sends them once and in order, then ready', () => {
    const { stream } = streamFor();
    stream.deliver(event(12));
    stream.deliver(event(11));
    stream.lastSentId = 9;
    stream.send(event(10));
    stream.send(event(11));
    stream.finishReplay(12);
    expect(written(stream)).toBe(
      [10, 11, 12]
        .map(
          (id) =>
            `id: ${id}\ndata: {"id":"${id}","type":"deviceCommandsChanged","data":{"deviceIds":["BAT-1"]},"createdAt":"2026-05-01T10:00:00.000Z"}\n\n`,
        )
        .join('') + 'id: 12\ndata: {"type":"ready","id":"12"}\n\n',
    );
  });

  it("leaves out another person's events", () => {
    const { stream } = streamFor();
    stream.finishReplay(0);
    written(stream);
    stream.deliver(event(1, ['BAT-1'], personKey({ kind: 'named', name: 'Bob' })));
    stream.deliver(event(2, ['BAT-2'], alice));
    expect(written(stream)).toContain('"id":"2"');
    expect(stream.lastSentId).toBe(2);
  });

  it('closes a slow reader once it would hold more than the bound, instead of growing', () => {
    const { stream, closed } = streamFor();
    stream.finishReplay(0);
    const deviceIds = Array.from({ length: 200 }, (_, i) => `BAT-${String(i).padStart(4, '0')}`);
    let id = 0;
    while (!stream.closed && id < 10_000) stream.deliver(event(++id, deviceIds));
    expect(stream.closeReason).toBe('slowReader');
    expect(closed).toEqual([stream]);
    // About one event (~2.3 KB) past the bound, not 10 000 events.
    expect(id * 2400).toBeLessThan(MAX_STREAM_BUFFER_BYTES + 10 * 2400);
    expect(stream.body.destroyed).toBe(true);
    stream.deliver(event(++id));
    expect(stream.lastSentId).toBe(id - 1);
  });

  it('resyncs instead of holding without end while a replay is slow', () => {
    const { stream } = streamFor();
    for (let id = 1; id <= 1500; id++) stream.deliver(event(id));
    stream.finishReplay(1500);
    const text = written(stream);
    expect(text).toContain('data: {"type":"resync","id":"1500"}');
    expect(text).not.toContain('"deviceCommandsChanged"');
    expect(text.endsWith('id: 1500\ndata: {"type":"ready","id":"1500"}\n\n')).toBe(true);
  });
});
