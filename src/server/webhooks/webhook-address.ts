import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The error code a refused address fails a connection with. */
export const PRIVATE_ADDRESS_CODE = 'WEBHOOK_PRIVATE_ADDRESS';

/**
 * Whether an outgoing webhook may connect to `address` (docs/security.md, Webhooks): only a
 * public unicast address. Refused: private (RFC 1918), loopback, link-local (IPv4 and IPv6),
 * carrier-grade NAT, IPv6 unique local (fc00::/7), unspecified, multicast, broadcast, reserved
 * and the IPv6 forms that carry an IPv4 address (IPv4-mapped is judged as the IPv4 it maps; NAT64,
 * 6to4, Teredo are refused), as ipaddr.js names the ranges.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // `process` turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped private address is judged as one.
  return ipaddr.process(address).range() === 'unicast';
}

function privateAddressError(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private address`);
  error.code = PRIVATE_ADDRESS_CODE;
  return error;
}

/**
 * A `lookup` for the outgoing connection that resolves the host name and refuses it when any of
 * its addresses is not public: checked where the socket connects, so a name that resolves
 * otherwise between a check and the connection (DNS rebinding) cannot slip through.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    if (addresses.length === 0 || addresses.some((entry) => !isPublicAddress(entry.address)))
      return callback(privateAddressError(hostname), '', 4);
    if (options.all) return (callback as unknown as AllCallback)(null, addresses);
    const first = addresses[0];
    return callback(null, first?.address ?? '', first?.family ?? 4);
  });
};

type AllCallback = (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

/**
 * Whether a URL's host is an IP literal that is not public (a literal is connected to without a
 * lookup, so it is checked before the request).
 */
export function isPrivateLiteral(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) && !isPublicAddress(host);
}
