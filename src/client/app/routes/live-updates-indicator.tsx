import type { PushState } from '../../lib/push-stream.ts';

/** A quiet header line while live updates are off: pages still poll, so changes only show later. Nothing while live, starting or hidden. */
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
