/** A short, announced loading line; `what` names what is loading ("Loading sites…"). */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="loading">
      <span className="spinner" aria-hidden="true" />
      {what}
    </p>
  );
}
