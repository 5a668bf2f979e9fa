/**
 * The one loopback predicate: whether a host (or a URL's host) is this machine. Used for
 * what may go over plain http (the API secret, a webhook URL), whether a listener can be
 * registered without a public URL, and whether certify can reach its own listener.
 */
import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 (also IPv4-mapped), localhost and names under .localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.split('.')[0] === '127';
  if (isIP(host) === 6) {
    if (/^(0{0,4}:){0,7}:?0{0,4}1$/.test(host) && host.replace(/[:0]/g, '') === '1') return true; // ::1 in any spelling
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):[0-9a-f]{1,4})$/.exec(host);
    if (mapped) return mapped[1] ? mapped[1].startsWith('127.') : parseInt(mapped[2]!, 16) >> 8 === 127;
  }
  return false;
}

/** Whether a URL's host is loopback; false for anything that is not a URL. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
