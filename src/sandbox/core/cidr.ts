/**
 * IP allowlists of API keys: IPv4 and IPv6 CIDRs. An IPv4-mapped IPv6 source address
 * (`::ffff:127.0.0.1`, what a dual-stack socket reports) is matched as IPv4.
 */
import { BlockList, isIP } from 'node:net';

export const DEFAULT_ALLOWLIST: readonly string[] = ['127.0.0.0/8', '::1/128'];

export interface ParsedCidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parse `a.b.c.d/n`, `x::y/n` or a bare address. Returns undefined when invalid. */
export function parseCidr(text: string): ParsedCidr | undefined {
  const [addr = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(addr);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address: addr, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The source address as it should be matched: IPv4-mapped IPv6 becomes IPv4. */
export function normaliseAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Block lists built from allowlists, by their entries (a key's allowlist is checked on every request). */
const built = new Map<string, BlockList>();
const MAX_BUILT = 256;

function blockListOf(allowlist: readonly string[]): BlockList {
  const id = allowlist.join('\n');
  let list = built.get(id);
  if (list) return list;
  list = new BlockList();
  for (const entry of allowlist) {
    const c = parseCidr(entry);
    if (c) list.addSubnet(c.address, c.prefix, c.family);
  }
  if (built.size >= MAX_BUILT) built.clear();
  built.set(id, list);
  return list;
}

/** Results by allowlist and address: the same client asks again and again. */
const answers = new Map<string, boolean>();

export function addressAllowed(address: string | undefined, allowlist: readonly string[]): boolean {
  if (!address) return false;
  const id = `${address}\n${allowlist.join('\n')}`;
  const known = answers.get(id);
  if (known !== undefined) return known;
  const src = normaliseAddress(address);
  const allowed = isIP(src.address) !== 0 && blockListOf(allowlist).check(src.address, src.family);
  if (answers.size >= MAX_BUILT) answers.clear();
  answers.set(id, allowed);
  return allowed;
}
