import { act, waitFor } from '@testing-library/react';
import { vi } from 'vitest';

/**
 * A stand-in for the browser's `EventSource` (happy-dom has none), installed with
 * {@link stubEventSource}: the test opens it, sends messages and fails it as the BFF and the
 * browser would. Undone by the `afterEach` of render.tsx (`vi.unstubAllGlobals`).
 */
export class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  /** Every source made since the stub was installed, oldest first. */
  static instances: FakeEventSource[] = [];

  readonly url: string;
  readyState = FakeEventSource.CONNECTING;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent<string>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(url: string | URL) {
    this.url = String(url);
    FakeEventSource.instances.push(this);
  }

  close(): void {
    this.readyState = FakeEventSource.CLOSED;
  }

  /** The BFF answered 200 `text/event-stream`. */
  open(): void {
    act(() => {
      this.readyState = FakeEventSource.OPEN;
      this.onopen?.(new Event('open'));
    });
  }

  /** A message, its `data` as JSON, with the SSE `id` when given. */
  send(data: unknown, id?: string): void {
    act(() => {
      this.onmessage?.(
        new MessageEvent('message', { data: JSON.stringify(data), lastEventId: id ?? '' }),
      );
    });
  }

  /** The connection dropped: `retrying` as the browser does by itself, or given up (closed). */
  fail(how: 'retrying' | 'closed'): void {
    act(() => {
      this.readyState = how === 'closed' ? FakeEventSource.CLOSED : FakeEventSource.CONNECTING;
      this.onerror?.(new Event('error'));
    });
  }
}

/** Installs {@link FakeEventSource} as the global `EventSource`; returns its class. */
export function stubEventSource(): typeof FakeEventSource {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  return FakeEventSource;
}

/** The newest source, failing the test when none was made. */
export function latestEventSource(): FakeEventSource {
  const source = FakeEventSource.instances.at(-1);
  if (!source) throw new Error('no EventSource was opened');
  return source;
}

/** The newest source once the page has opened one (effects run after the first paint). */
export function openedEventSource(): Promise<FakeEventSource> {
  return waitFor(latestEventSource);
}
