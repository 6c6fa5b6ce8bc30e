import type { PushState } from '../../lib/push-stream.ts';

/**
 * A quiet line in the header while live updates are off (the stream dropped and is being opened
 * again, or this browser cannot receive them): pages still refresh by polling, so nothing is
 * wrong but changes show a little later. Nothing while they are live, while they start, or while
 * the tab is hidden.
 */
export function LiveUpdatesIndicator({ state }: { state: PushState }) {
  if (state !== 'reconnecting' && state !== 'unsupported') return null;
  return (
    <p className="live-updates-off">
      <span className="live-updates-mark" aria-hidden="true" />
      Live updates off
      <span className="visually-hidden">
        {state === 'reconnecting'
          ? ': reconnecting. Pages still refresh by themselves, a little later.'
          : ': this browser cannot receive them. Pages still refresh by themselves.'}
      </span>
    </p>
  );
}
