/**
 * Accepting an order: product checks, inventory, the full debit, then either a cache-hit
 * (201, delivered at once) or a cache-miss (202 PENDING, handed to the fulfilment
 * scheduler or held at the admin gate). Runs synchronously from the first check to the
 * commit, so concurrent requests never interleave inside it.
 */
import type { CreateOrderRequest } from '../../contract/orders.js';
import { checkAmountNumber } from '../../contract/amount.js';
import { toMinor } from '../../contract/money-format.js';
import { SandboxHttpError, validationFailed, type ErrorDetailEntry } from '../http/errors.js';
import type { Runtime } from '../runtime.js';
import type { ApiKeyRecord, OrderRecord, PartnerRecord, ProductRecord } from '../state/types.js';
import { emit } from './events.js';
import { scheduleProcessing, setStatus, settle } from './fulfilment.js';
import { requireSafeMinor } from './amount.js';
import { post } from './ledger.js';
import { cachedCount } from './views.js';
import { issue, pendingVoucher, takeFromCache } from './vouchers.js';
import { own } from '../core/records.js';
import { counted } from '../../core/output/counted.js';

export interface AcceptedOrder {
  order: OrderRecord;
  cacheHit: boolean;
}

/** Products of the request, checked for existence, openness, denominations and one currency. */
function checkProducts(rt: Runtime, partner: PartnerRecord, req: CreateOrderRequest): { products: ProductRecord[]; currency: string } {
  const products: ProductRecord[] = [];
  const details: ErrorDetailEntry[] = [];
  req.items.forEach((item, i) => {
    const p = own(rt.state.products, item.product_id);
    if (!p)
      throw new SandboxHttpError(
        'NOT_FOUND',
        `Product ${JSON.stringify(item.product_id)} (items.${i}.product_id) does not exist; list products with GET /products`,
      );
    if (!partner.categories.includes(p.category_id)) {
      throw new SandboxHttpError(
        'PRODUCT_NOT_AVAILABLE',
        `Product ${p.product_id} (items.${i}.product_id) is in category ${p.category_id}, which is not open to your organisation`,
      );
    }
    const exact = checkAmountNumber(item.denomination, req.currency ?? p.currency);
    if (!exact.ok) {
      details.push({
        path: `items.${i}.denomination`,
        message: `${item.denomination} ${exact.reason.replace('the currency', req.currency ?? p.currency)}`,
      });
    } else if (!p.denominations.includes(item.denomination)) {
      details.push({
        path: `items.${i}.denomination`,
        message: `${item.denomination} is not a denomination of ${p.product_id}; choose one of ${p.denominations.join(', ')}`,
      });
    }
    products.push(p);
  });
  const currency = products[0]?.currency ?? 'USD';
  products.forEach((p, i) => {
    if (p.currency !== currency)
      details.push({
        path: `items.${i}.product_id`,
        message: `${p.product_id} is priced in ${p.currency}; all items of an order share one currency (${currency})`,
      });
  });
  if (req.currency !== undefined && req.currency !== currency) {
    details.push({ path: 'currency', message: `must be the products' currency ${currency}, got ${req.currency}` });
  }
  if (details.length) throw validationFailed(details);
  return { products, currency };
}

const ASYNC_BEHAVIOURS = new Set(['async', 'partial', 'gated', 'vendor_fail']);

/** Whether every voucher fits the cache; throws 409 when some can be fulfilled neither from cache nor vendor. */
function checkInventory(req: CreateOrderRequest, products: ProductRecord[]): boolean {
  const need = new Map<string, { p: ProductRecord; denomination: number; n: number }>();
  req.items.forEach((item, i) => {
    const p = products[i]!;
    const key = `${p.product_id}\u0000${item.denomination}`;
    const entry = need.get(key) ?? { p, denomination: item.denomination, n: 0 };
    entry.n += item.quantity;
    need.set(key, entry);
  });
  let fits = true;
  for (const { p, denomination, n } of need.values()) {
    const inCache = p.cache_unlimited || (!ASYNC_BEHAVIOURS.has(p.behaviour) && cachedCount(p, denomination) >= n);
    if (inCache) continue;
    fits = false;
    const cache = ASYNC_BEHAVIOURS.has(p.behaviour) ? 0 : cachedCount(p, denomination);
    if (!p.vendor_available) {
      throw new SandboxHttpError(
        'INSUFFICIENT_INVENTORY',
        cache === 0
          ? `No vouchers are available for ${p.product_id} at ${denomination} ${p.currency}: nothing in cache and the vendor has no stock; try another product or denomination`
          : `Only ${counted(cache, 'voucher')} of ${p.product_id} at ${denomination} ${p.currency} are available and the vendor has no stock; order at most ${cache}`,
      );
    }
  }
  return fits;
}

export function createOrder(rt: Runtime, partner: PartnerRecord, key: ApiKeyRecord, req: CreateOrderRequest): AcceptedOrder {
  const { products, currency } = checkProducts(rt, partner, req);
  const cacheHit = checkInventory(req, products);
  const total = requireSafeMinor(
    req.items.reduce((n, item) => n + toMinor(item.denomination, currency) * item.quantity, 0),
    'items',
    'the order total',
  );
  const orderId = rt.ids.next('ord');
  post(rt, partner, { type: 'ORDER_DEBIT', amount_minor: -total, currency, description: `Order ${orderId}`, order_id: orderId });

  const now = rt.clock.now();
  const gated = products.some((p) => p.behaviour === 'gated');
  const order: OrderRecord = {
    order_id: orderId,
    partner_id: partner.partner_id,
    api_key: key.api_key,
    status: 'PENDING',
    items: req.items.map((i) => ({ product_id: i.product_id, denomination: i.denomination, quantity: i.quantity })),
    currency,
    total_minor: total,
    refunded_minor: 0,
    reference: req.reference ?? null,
    fulfilled_from: null,
    created_at: now,
    updated_at: now,
    settled_at: null,
    vouchers: [],
    timeline: [],
    gate: gated && !cacheHit ? 'held' : null,
    next_step: null,
  };
  for (const item of req.items) {
    for (let q = 0; q < item.quantity; q++) order.vouchers.push(pendingVoucher(rt, item.product_id, item.denomination));
  }
  rt.state.orders[orderId] = order;

  if (cacheHit) {
    for (const v of order.vouchers) {
      const p = rt.state.products[v.product_id]!;
      takeFromCache(p, v.denomination);
      issue(rt, v, p, 'cache');
    }
    order.timeline.push({ status: 'PENDING', at: now, note: 'accepted' });
    emit(rt, partner.partner_id, 'order.created', rt.dialect.payloads.created(order), orderId);
    settle(rt, order);
    return { order, cacheHit };
  }
  setStatus(rt, order, 'PENDING', order.gate === 'held' ? 'accepted; held at the admin gate' : 'accepted; awaiting vendor fulfilment');
  emit(rt, partner.partner_id, 'order.created', rt.dialect.payloads.created(order), orderId);
  if (order.gate !== 'held') scheduleProcessing(rt, order);
  return { order, cacheHit };
}
