import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { PushEnvelopeSchema, type PushEnvelope } from '../../domain/account-events.ts';

/**
 * Where the live updates of a page stand (docs/architecture.md, Live updates):
 *
 * - `connecting`: the stream is being opened; not yet live.
 * - `live`: the BFF said `ready` (it replayed what was missed); events arrive as they happen.
 * - `reconnecting`: the stream dropped or was refused; the browser (after the BFF's `retry`
 *   hint) or this hook (1 s doubling to 60 s) opens it again, resuming from the last event.
 * - `paused`: the tab is hidden, so the stream is closed (browsers allow six connections per
 *   site over HTTP/1.1; a stream per hidden tab would use them up); it resumes when shown.
 * - `unsupported`: this browser has no `EventSource`.
 * - `ended`: the BFF ended the session; the stream is not opened again.
 *
 * Anything but `live` means updates come only from the pages' own polling, which never stops.
 */
export type PushState = 'connecting' | 'live' | 'reconnecting' | 'paused' | 'unsupported' | 'ended';

/** True when pushed updates arrive now; otherwise pages rely on their polling alone. */
export const isLive = (state: PushState): boolean => state === 'live';

/** The page's push state, for code that adapts to it (polling intervals, the indicator). */
export const PushStateContext = createContext<PushState>('connecting');

/** The push state of the signed-in layout (`PushStateContext`). */
export function usePushState(): PushState {
  return useContext(PushStateContext);
}

/** First wait before this hook opens a refused stream again, ms; doubles up to the next. */
export const PUSH_RETRY_FIRST_MS = 1000;
export const PUSH_RETRY_MAX_MS = 60_000;

export interface PushStreamOptions {
  /** Default `/api/events`. */
  url?: string;
  /** Opens the stream while true (default). */
  enabled?: boolean;
  /** Each message but the stream's own `ready` and `sessionEnded`: events and `resync`. */
  onMessage: (message: PushEnvelope) => void;
  /** The BFF ended the session (signed out elsewhere, expired). */
  onSessionEnded?: () => void;
  /** Jitter of the reconnection waits, 0..1 (tests pass a fixed one). */
  random?: () => number;
}

/**
 * Keeps one `EventSource` on the BFF's `/api/events` while the page is shown, and says where it
 * stands. The browser reconnects a dropped stream by itself and sends `Last-Event-ID`; when it
 * gives up (an error answer: the BFF restarting, no database), this hook opens a new one after a
 * growing wait, passing the last event ID in the query so nothing is missed. Messages are parsed
 * with the domain's envelope; anything else is ignored.
 */
export function usePushStream({
  url = '/api/events',
  enabled = true,
  onMessage,
  onSessionEnded,
  random = Math.random,
}: PushStreamOptions): PushState {
  const [state, setState] = useState<PushState>(() =>
    document.visibilityState === 'hidden' ? 'paused' : 'connecting',
  );
  const supported = typeof globalThis.EventSource === 'function';
  const handlers = useRef({ onMessage, onSessionEnded, random });
  useEffect(() => {
    handlers.current = { onMessage, onSessionEnded, random };
  });

  useEffect(() => {
    if (!enabled || !supported) return;
    const EventSourceClass = globalThis.EventSource;
    let source: EventSource | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let lastEventId: string | undefined;
    let stopped = false;

    const close = () => {
      source?.close();
      source = undefined;
    };
    const open = () => {
      clearTimeout(retryTimer);
      if (stopped || source || document.visibilityState === 'hidden') return;
      const target =
        lastEventId === undefined
          ? url
          : `${url}?${new URLSearchParams({ lastEventId }).toString()}`;
      const opened = new EventSourceClass(target);
      source = opened;
      opened.onmessage = (event: MessageEvent<string>) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        const message = parseEnvelope(event.data);
        if (!message) return;
        if (message.type === 'ready') {
          failures = 0;
          setState('live');
        } else if (message.type === 'sessionEnded') {
          stopped = true;
          close();
          setState('ended');
          handlers.current.onSessionEnded?.();
        } else handlers.current.onMessage(message);
      };
      opened.onerror = () => {
        if (source !== opened) return;
        setState('reconnecting');
        // CONNECTING: the browser tries again by itself. CLOSED: it gave up; so do we, for a while.
        if (opened.readyState !== EventSourceClass.CLOSED) return;
        close();
        const waitMs = Math.min(PUSH_RETRY_FIRST_MS * 2 ** failures, PUSH_RETRY_MAX_MS);
        failures += 1;
        retryTimer = setTimeout(open, waitMs * (0.8 + 0.4 * handlers.current.random()));
      };
    };
    const onVisibilityChange = () => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        clearTimeout(retryTimer);
        close();
        setState('paused');
      } else {
        setState((previous) => (previous === 'paused' ? 'connecting' : previous));
        open();
      }
    };

    document.addEventListener('visibilitychange', onVisibilityChange);
    open();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      close();
      document.removeEventListener('visibilitychange', onVisibilityChange);
    };
  }, [url, enabled, supported]);

  return supported ? state : 'unsupported';
}

function parseEnvelope(data: string): PushEnvelope | undefined {
  try {
    const parsed = PushEnvelopeSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
