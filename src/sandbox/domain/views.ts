/**
 * Records → JSON bodies of the contract. Order views come in three modes: `created` (the
 * 201 cache-hit body, codes and pins included), `read` (GET, `code_last4` instead) and
 * `admin` (same as read). Nothing here ever returns a code unless the mode asks for it.
 */
import { fromMinor } from '../../contract/money-format.js';
import { iso } from '../core/time.js';
import type {
  CategoryRecord,
  OrderRecord,
  PayoutRecord,
  ProductRecord,
  TransactionRecord,
  VoucherRecord,
  WalletRecord,
  WebhookRecord,
} from '../state/types.js';

export const LIST_DENOMINATIONS = 10;

export function categoryView(c: CategoryRecord) {
  return { category_id: c.category_id, name: c.name, description: c.description };
}

function productBase(p: ProductRecord) {
  return {
    product_id: p.product_id,
    name: p.name,
    category_id: p.category_id,
    vendor: p.vendor,
    currency: p.currency,
    countries: [...p.countries],
    denominations: [...p.denominations],
    expiry_policy: { ...p.expiry_policy },
  };
}

export function productListView(p: ProductRecord) {
  const base = productBase(p);
  if (base.denominations.length > LIST_DENOMINATIONS) {
    return { ...base, denominations: base.denominations.slice(0, LIST_DENOMINATIONS), denominations_truncated: true };
  }
  return base;
}

export function cachedCount(p: ProductRecord, denomination: number): number {
  return p.cached[String(denomination)] ?? 0;
}

export function availability(p: ProductRecord) {
  const cached: Record<string, number> = {};
  let total = 0;
  for (const d of p.denominations) {
    const n = cachedCount(p, d);
    cached[String(d)] = n;
    total += n;
  }
  const status =
    total === 0 && !p.vendor_available ? 'out_of_stock' : total < 10 * p.denominations.length && !p.cache_unlimited ? 'low' : 'in_stock';
  return { status, cached };
}

export function productDetailView(p: ProductRecord) {
  return { ...productBase(p), availability: availability(p) };
}

export type OrderViewMode = 'created' | 'read';

function voucherView(v: VoucherRecord, mode: OrderViewMode) {
  const out: Record<string, unknown> = {
    voucher_id: v.voucher_id,
    product_id: v.product_id,
    denomination: v.denomination,
    expiry: v.expiry,
    status: v.status,
  };
  if (v.status === 'ISSUED' && v.code !== null) {
    if (mode === 'created') {
      out.code = v.code;
      out.pin = v.pin;
    } else {
      out.code_last4 = v.code.slice(-4);
    }
  }
  return out;
}

export function orderView(o: OrderRecord, mode: OrderViewMode = 'read') {
  return {
    order_id: o.order_id,
    status: o.status,
    items: o.items.map((i) => ({ ...i })),
    total_amount: fromMinor(o.total_minor, o.currency),
    currency: o.currency,
    reference: o.reference,
    fulfilled_from: o.fulfilled_from,
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
    vouchers: o.vouchers.filter((v) => v.status !== 'PENDING').map((v) => voucherView(v, mode)),
    timeline: o.timeline.map((t) => ({ status: t.status, at: iso(t.at), note: t.note })),
  };
}

export function codesView(o: OrderRecord) {
  return {
    order_id: o.order_id,
    data: o.vouchers
      .filter((v) => v.status === 'ISSUED' && v.code !== null)
      .map((v) => ({
        voucher_id: v.voucher_id,
        product_id: v.product_id,
        denomination: v.denomination,
        expiry: v.expiry,
        code: v.code,
        pin: v.pin,
      })),
  };
}

export function walletView(currency: string, w: WalletRecord) {
  return { currency, available: fromMinor(w.available_minor, currency), reserved: 0, updated_at: iso(w.updated_at) };
}

export function transactionView(t: TransactionRecord) {
  const out: Record<string, unknown> = {
    transaction_id: t.transaction_id,
    type: t.type,
    amount: fromMinor(t.amount_minor, t.currency),
    currency: t.currency,
    balance_after: fromMinor(t.balance_after_minor, t.currency),
  };
  if (t.order_id) out.order_id = t.order_id;
  if (t.payout_id) out.payout_id = t.payout_id;
  out.description = t.description;
  out.created_at = iso(t.created_at);
  return out;
}

export function payoutView(p: PayoutRecord) {
  return {
    payout_id: p.payout_id,
    status: p.status,
    amount: fromMinor(p.amount_minor, p.currency),
    currency: p.currency,
    reference: p.reference,
    created_at: iso(p.created_at),
  };
}

export function webhookView(w: WebhookRecord, secret?: string) {
  const out: Record<string, unknown> = {
    webhook_id: w.webhook_id,
    url: w.url,
    events: [...w.events],
    description: w.description,
    created_at: iso(w.created_at),
    updated_at: iso(w.updated_at),
  };
  if (secret !== undefined) out.signing_secret = secret;
  return out;
}
