/** Online, offline or unknown (the upstream may not say), in words and not by colour alone. */
export function ConnectionState({ online }: { online: boolean | undefined }) {
  if (online === undefined) return <span className="connection connection-unknown">unknown</span>;
  return online ? (
    <span className="connection connection-online">online</span>
  ) : (
    <span className="connection connection-offline">offline</span>
  );
}
