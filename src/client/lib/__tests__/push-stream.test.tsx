import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PushEnvelope } from '#domain/account-events.ts';
import {
  FakeEventSource,
  latestEventSource,
  stubEventSource,
} from '../../testing/fake-event-source.ts';
import { PUSH_RETRY_FIRST_MS, usePushStream } from '../push-stream.ts';

let visibility: DocumentVisibilityState = 'visible';

function setVisibility(state: DocumentVisibilityState) {
  visibility = state;
  act(() => {
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

function renderStream() {
  const messages: PushEnvelope[] = [];
  const onSessionEnded = vi.fn();
  const hook = renderHook(() =>
    usePushStream({
      onMessage: (message) => messages.push(message),
      onSessionEnded,
      random: () => 0.5,
    }),
  );
  return { hook, messages, onSessionEnded };
}

const changed = (id: string, deviceId = 'BAT-1') => ({
  id,
  type: 'deviceCommandsChanged',
  data: { deviceIds: [deviceId] },
  createdAt: '2026-05-01T10:00:00.000Z',
});

beforeEach(() => {
  visibility = 'visible';
  vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => visibility);
  stubEventSource();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('the push stream hook', () => {
  it('is live once the BFF says ready, and hands on events but its own messages', () => {
    const { hook, messages } = renderStream();
    const source = latestEventSource();
    expect(source.url).toBe('/api/events');
    expect(hook.result.current).toBe('connecting');
    source.open();
    expect(hook.result.current).toBe('connecting');
    source.send({ type: 'ready', id: '41' }, '41');
    expect(hook.result.current).toBe('live');
    source.send(changed('42'), '42');
    source.send({ type: 'resync', id: '50' }, '50');
    source.send('not an envelope');
    expect(messages.map((m) => m.type)).toEqual(['deviceCommandsChanged', 'resync']);
    expect(messages[0]).toMatchObject({ id: '42', data: { deviceIds: ['BAT-1'] } });
  });

  it("says reconnecting while the browser retries by itself, and live again once it's back", () => {
    const { hook } = renderStream();
    const source = latestEventSource();
    source.send({ type: 'ready', id: '1' }, '1');
    source.fail('retrying');
    expect(hook.result.current).toBe('reconnecting');
    // The browser keeps this source and sends Last-Event-ID itself: no new source.
    expect(FakeEventSource.instances).toHaveLength(1);
    source.send({ type: 'ready', id: '1' }, '1');
    expect(hook.result.current).toBe('live');
  });

  it('opens a new stream after a growing wait when the browser gave up, resuming from the last event', () => {
    vi.useFakeTimers();
    const { hook } = renderStream();
    const first = latestEventSource();
    first.send({ type: 'ready', id: '7' }, '7');
    first.send(changed('9'), '9');
    first.fail('closed');
    expect(hook.result.current).toBe('reconnecting');
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    act(() => void vi.advanceTimersByTime(PUSH_RETRY_FIRST_MS - 1));
    expect(FakeEventSource.instances).toHaveLength(1);
    act(() => void vi.advanceTimersByTime(1));
    const second = latestEventSource();
    expect(second.url).toBe('/api/events?lastEventId=9');

    // Refused again: the wait doubles.
    second.fail('closed');
    act(() => void vi.advanceTimersByTime(2 * PUSH_RETRY_FIRST_MS - 1));
    expect(FakeEventSource.instances).toHaveLength(2);
    act(() => void vi.advanceTimersByTime(1));
    const third = latestEventSource();
    third.send({ type: 'ready', id: '9' }, '9');
    expect(hook.result.current).toBe('live');
  });

  it('closes the stream while the tab is hidden and resumes it when shown', () => {
    const { hook } = renderStream();
    const first = latestEventSource();
    first.send({ type: 'ready', id: '3' }, '3');
    setVisibility('hidden');
    expect(hook.result.current).toBe('paused');
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    setVisibility('visible');
    expect(hook.result.current).toBe('connecting');
    expect(latestEventSource().url).toBe('/api/events?lastEventId=3');
  });

  it('stops for good when the BFF ends the session', () => {
    vi.useFakeTimers();
    const { hook, onSessionEnded } = renderStream();
    const source = latestEventSource();
    source.send({ type: 'ready', id: '3' }, '3');
    source.send({ type: 'sessionEnded' });
    expect(hook.result.current).toBe('ended');
    expect(onSessionEnded).toHaveBeenCalledTimes(1);
    expect(source.readyState).toBe(FakeEventSource.CLOSED);
    setVisibility('hidden');
    setVisibility('visible');
    act(() => void vi.advanceTimersByTime(10 * 60_000));
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  it('closes the stream when the page goes', () => {
    const { hook } = renderStream();
    const source = latestEventSource();
    hook.unmount();
    expect(source.readyState).toBe(FakeEventSource.CLOSED);
  });

  it('closes the stream before the browser leaves the page, and opens it again when the page comes back from the back-forward cache', () => {
    renderStream();
    const first = latestEventSource();
    first.send({ type: 'ready', id: '4' }, '4');
    act(() => void window.dispatchEvent(new Event('beforeunload')));
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    // happy-dom's PageTransitionEvent leaves out `persisted`; a browser sets it on a restore.
    const restored = Object.assign(new Event('pageshow'), { persisted: true });
    act(() => void window.dispatchEvent(restored));
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(latestEventSource().url).toBe('/api/events?lastEventId=4');
  });

  it('says unsupported, and opens nothing, in a browser without EventSource', () => {
    vi.stubGlobal('EventSource', undefined);
    const { hook } = renderStream();
    expect(hook.result.current).toBe('unsupported');
  });
});
