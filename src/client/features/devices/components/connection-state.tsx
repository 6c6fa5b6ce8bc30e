/** Online, offline or unknown, and faulted, in words not by colour alone: "faulted, online". */
export function ConnectionState({
  online,
  faulted,
}: {
  online: boolean | undefined;
  faulted?: boolean | undefined;
}) {
  const connection =
    online === undefined ? (
      <span className="connection connection-unknown">unknown</span>
    ) : online ? (
      <span className="connection connection-online">online</span>
    ) : (
      <span className="connection connection-offline">offline</span>
    );
  if (!faulted) return connection;
  return (
    <>
      <span className="device-fault">
        <span aria-hidden="true">⚠ </span>faulted
      </span>
      , {connection}
    </>
  );
}
