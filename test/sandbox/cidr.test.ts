import { describe, expect, it } from 'vitest';
import { addressAllowed, DEFAULT_ALLOWLIST, parseCidr } from '../../src/sandbox/core/cidr.js';

describe('allowlist matching', () => {
  it('matches IPv4, IPv6 and IPv4-mapped IPv6 sources', () => {
    expect(addressAllowed('127.0.0.1', DEFAULT_ALLOWLIST)).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', DEFAULT_ALLOWLIST)).toBe(true);
    expect(addressAllowed('::1', DEFAULT_ALLOWLIST)).toBe(true);
    expect(addressAllowed('10.1.2.3', DEFAULT_ALLOWLIST)).toBe(false);
    expect(addressAllowed('2001:db8::5', ['2001:db8::/32'])).toBe(true);
    expect(addressAllowed('2001:db9::5', ['2001:db8::/32'])).toBe(false);
    expect(addressAllowed('192.168.1.77', ['192.168.1.0/24'])).toBe(true);
    expect(addressAllowed(undefined, DEFAULT_ALLOWLIST)).toBe(false);
  });

  it('parses only valid CIDRs', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('nonsense')).toBeUndefined();
  });
});
