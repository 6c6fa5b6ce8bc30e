import { describe, expect, it } from 'vitest';
import { isPrivateLiteral, isPublicAddress } from '../webhook-address.ts';

describe('the addresses an outgoing webhook may reach', () => {
  it('takes public unicast addresses only', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd12:3456::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
      'not an address',
    ])
      expect(isPublicAddress(address), address).toBe(false);
    // An IPv4-mapped public address is judged as the IPv4 it maps.
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
  });

  it('checks an IP literal of a URL before any connection, and leaves names to the lookup', () => {
    expect(isPrivateLiteral(new URL('https://[::1]/hook'))).toBe(true);
    expect(isPrivateLiteral(new URL('https://[fd00::2]/hook'))).toBe(true);
    expect(isPrivateLiteral(new URL('https://169.254.169.254/latest'))).toBe(true);
    expect(isPrivateLiteral(new URL('https://8.8.8.8/hook'))).toBe(false);
    expect(isPrivateLiteral(new URL('https://hooks.example.com/hook'))).toBe(false);
  });
});
