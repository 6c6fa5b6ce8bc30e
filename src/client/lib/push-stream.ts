import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { PushEnvelopeSchema, type PushEnvelope } from '#domain/account-events.ts';

/**
 * Where live updates stand (docs/architecture.md, Live updates): `connecting`, `live` (after the
 * BFF's `ready`), `reconnecting`, `paused` (tab hidden: HTTP/1.1 allows six connections per site),
 * `unsupported`, `ended` (session over). Pages keep polling whatever the state.
 */
export type PushState = 'connecting' | 'live' | 'reconnecting' | 'paused' | 'unsupported' | 'ended';

/** True when pushed updates arrive now; otherwise pages rely on their polling alone. */
export const isLive = (state: PushState): boolean => state === 'live';

export const PushStateContext = createContext<PushState>('connecting');

export function usePushState(): PushState {
  return useContext(PushStateContext);
}

/** First wait before this hook opens a refused stream again, ms; doubles up to the next. */
export const PUSH_RETRY_FIRST_MS = 1000;
export const PUSH_RETRY_MAX_MS = 60_000;

export interface PushStreamOptions {
  url?: string;
  enabled?: boolean;
  /** Each message but the stream's own `ready` and `sessionEnded`: events and `resync`. */
  onMessage: (message: PushEnvelope) => void;
  /** The BFF ended the session (signed out elsewhere, expired). */
  onSessionEnded?: () => void;
  /** Jitter of the reconnection waits, 0..1 (tests pass a fixed one). */
  random?: () => number;
}

/**
 * One `EventSource` on `/api/events` while the page is shown. When the browser gives up, reopens
 * after a growing wait with the last event ID in the query, so nothing is missed.
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

    // Close before the navigation cuts the stream, or Firefox logs an error on each; `pagehide` is too late.
    const onLeave = () => {
      clearTimeout(retryTimer);
      close();
    };
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted && !stopped) open();
    };

    document.addEventListener('visibilitychange', onVisibilityChange);
    window.addEventListener('beforeunload', onLeave);
    window.addEventListener('pageshow', onPageShow);
    open();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      close();
      document.removeEventListener('visibilitychange', onVisibilityChange);
      window.removeEventListener('beforeunload', onLeave);
      window.removeEventListener('pageshow', onPageShow);
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
