/** Issuing vouchers: codes and pins from the seeded generator, expiry from the product's policy. */
import { addMonths } from '../core/time.js';
import { CROCKFORD } from '../core/ids.js';
import type { Runtime } from '../runtime.js';
import type { ProductRecord, VoucherRecord } from '../state/types.js';
import { flat } from '../core/flat.js';

export function expiryFor(p: ProductRecord, issuedAt: number): string | null {
  const policy = p.expiry_policy;
  if (policy.type === 'months_from_issue') return addMonths(issuedAt, policy.months);
  if (policy.type === 'fixed_date') return policy.date;
  return null;
}

function newCode(rt: Runtime): string {
  const group = () => rt.rng.chars(CROCKFORD, 4);
  return flat(`SBX-${group()}-${group()}-${group()}`);
}

/** A voucher slot of an order, not issued yet. */
export function pendingVoucher(rt: Runtime, productId: string, denomination: number): VoucherRecord {
  return {
    voucher_id: rt.ids.next('vch'),
    product_id: productId,
    denomination,
    expiry: null,
    status: 'PENDING',
    code: null,
    pin: null,
    source: null,
    issued_at: null,
  };
}

export function issue(rt: Runtime, v: VoucherRecord, p: ProductRecord, source: 'cache' | 'vendor'): void {
  const now = rt.clock.now();
  v.status = 'ISSUED';
  v.code = newCode(rt);
  v.pin = p.has_pin ? rt.rng.chars('0123456789', 4) : null;
  v.expiry = expiryFor(p, now);
  v.source = source;
  v.issued_at = now;
}

export function fail(v: VoucherRecord): void {
  v.status = 'FAILED';
  v.code = null;
  v.pin = null;
  v.expiry = null;
  v.source = null;
}

/** Take one voucher from the product's cache; false when the cache is empty. */
export function takeFromCache(p: ProductRecord, denomination: number): boolean {
  if (p.cache_unlimited) return true;
  const key = String(denomination);
  const n = p.cached[key] ?? 0;
  if (n <= 0) return false;
  p.cached[key] = n - 1;
  return true;
}
