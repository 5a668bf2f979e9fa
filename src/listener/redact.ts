/**
 * Voucher codes never belong in a webhook payload. Should a sender put one there anyway
 * (`code`, `pin`, `code_last4` at any depth), what the listener and `events` print shows
 * `[redacted]` instead, and says where it was. The inbox keeps the event as signed.
 */
const FORBIDDEN = new Set(['code', 'pin', 'code_last4']);

export const REDACTED = '[redacted]';

export interface Redacted<T> {
  value: T;
  /** Paths of the fields replaced, e.g. `data.vouchers.0.code`. */
  found: string[];
}

export function redactCodes<T>(value: T, path = ''): Redacted<T> {
  const found: string[] = [];
  const walk = (v: unknown, at: string): unknown => {
    if (Array.isArray(v)) return v.map((item, i) => walk(item, at ? `${at}.${i}` : String(i)));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      const here = at ? `${at}.${k}` : k;
      if (FORBIDDEN.has(k) && item !== null && item !== undefined) {
        found.push(here);
        out[k] = REDACTED;
      } else {
        out[k] = walk(item, here);
      }
    }
    return out;
  };
  return { value: walk(value, path) as T, found };
}
