/**
 * The demo's steps, each made of real requests through the normal client (signed writes,
 * trace IDs shown) and the api/ calls the partner commands use. Codes are always masked.
 */
import { listCategories, listProducts } from '../../api/catalog.js';
import { createOrder, followOrder, getOrderCodes } from '../../api/orders.js';
import { listTransactions } from '../../api/transactions.js';
import { listWallets } from '../../api/wallets.js';
import type { Order } from '../../contract/orders.js';
import type { ApiClient, ApiResponse } from '../../core/http/types.js';
import { formatMoney, maskCode } from '../../core/output/format.js';
import { shownCode } from '../orders/redact.js';
import type { Factory } from '../../factory.js';
import type { Narrator } from './narrator.js';

export interface RequestRecord {
  method: string;
  path: string;
  status: number;
  trace_id: string | null;
}

export interface StepContext {
  f: Factory;
  client: ApiClient;
  say: Narrator;
  /** Requests of the current step, for the JSON summary. */
  requests: RequestRecord[];
}

export function show(ctx: StepContext, method: string, path: string, res: ApiResponse<unknown>): void {
  ctx.requests.push({ method, path, status: res.status, trace_id: res.traceId ?? null });
  ctx.say.request(method, path, res.status, res.traceId);
}

export async function catalog(ctx: StepContext): Promise<{ categories: number; products: number }> {
  const { say, client, f } = ctx;
  say.explain('Reads authenticate with two headers, X-API-Key and X-API-Secret; they need no signature.\nThe server answers every request with an X-Trace-ID: quote it to support.');
  const cats = await listCategories(client, { signal: f.io.signal });
  show(ctx, 'GET', '/categories', cats);
  say.item(`${cats.data.data.length} categories open to this partner: ${cats.data.data.map((c) => c.category_id).join(', ')}`);
  const products = await listProducts(client, { category_id: 'sandbox' }, { signal: f.io.signal });
  show(ctx, 'GET', '/products?category_id=sandbox', products);
  for (const p of products.data.data.slice(0, 4)) {
    say.item(`${say.c.bold(p.product_id.padEnd(18))} ${p.currency} ${p.denominations.join('/')}  ${p.name}`);
  }
  say.explain('The sbx-* products are deterministic: each always takes one fulfilment path.');
  return { categories: cats.data.data.length, products: products.data.data.length };
}

function vouchersLine(order: Order): string[] {
  return order.vouchers.map((v) => `voucher ${v.voucher_id}  ${formatMoney(v.denomination, order.currency)}  code ${shownCode(v, false)}  expires ${v.expiry ?? 'never'}`);
}

export async function instantOrder(ctx: StepContext): Promise<Order> {
  const { say, client, f } = ctx;
  const key = f.ids.idempotencyKey();
  say.explain('A write is signed: X-Timestamp and X-Signature (HMAC-SHA256 of timestamp + method + path + body).\nIdempotency-Key makes a retry safe: the same key never orders twice.');
  const res = await createOrder(client, { items: [{ product_id: 'sbx-instant', denomination: 25, quantity: 2 }], reference: 'demo-cache-hit' }, { idempotencyKey: key, signal: f.io.signal });
  show(ctx, 'POST', '/orders', res);
  const order = res.data;
  say.ok(`${order.order_id} ${say.c.green(order.status)} from ${order.fulfilled_from ?? 'cache'}: ${formatMoney(order.total_amount, order.currency)} debited  ${say.c.dim(`Idempotency-Key ${key}`)}`);
  for (const l of vouchersLine(order)) say.item(l);
  say.explain('It fit the cache, so the answer is 201 with the codes in the body (masked here, as the CLI always does\nunless you pass --reveal).');
  return order;
}

export async function asyncOrder(ctx: StepContext, waitForEvents: (orderId: string) => Promise<void>): Promise<Order> {
  const { say, client, f } = ctx;
  const res = await createOrder(client, { items: [{ product_id: 'sbx-async', denomination: 50, quantity: 1 }], reference: 'demo-async' }, { idempotencyKey: f.ids.idempotencyKey(), signal: f.io.signal });
  show(ctx, 'POST', '/orders', res);
  const orderId = res.data.order_id;
  say.ok(`${orderId} ${say.c.yellow(res.data.status)}: accepted (202), fulfilled by the vendor in the background`);
  say.explain('Following it with GET /orders/{id} until a final status:');
  await say.startSpinner(`Waiting for ${orderId}…`);
  let result;
  try {
    result = await followOrder(client, orderId, {
      clock: f.clock, signal: f.io.signal, timeoutMs: 60_000, initialIntervalMs: 200, maxIntervalMs: 400,
      initial: { order: res.data, traceId: res.traceId },
      onStatus: (o, r) => {
        if (r.status && r.text !== '') ctx.requests.push({ method: 'GET', path: `/orders/${orderId}`, status: r.status, trace_id: r.traceId ?? null });
        say.item(`status ${say.c.bold(o.status)}${r.text !== '' ? `  ${say.c.dim('trace')} ${r.traceId ?? ''}` : ''}`);
        say.spinnerText(`Waiting for ${orderId}: ${o.status}`);
      },
    });
    await waitForEvents(orderId);
  } finally {
    say.stopSpinner();
  }
  if (!result.reached) throw new Error(`the demo order ${orderId} did not reach a final status (it is ${result.order.status})`);
  say.ok(`${orderId} ${say.c.green(result.order.status)} after ${result.polls} polls`);
  return result.order;
}

export async function codes(ctx: StepContext, orderId: string, currency: string): Promise<number> {
  const { say, client, f } = ctx;
  say.explain('Order reads show only the last 4 characters of a code. The full codes come from one secure\nendpoint, and the server records every call with its trace ID.');
  const res = await getOrderCodes(client, orderId, { signal: f.io.signal });
  show(ctx, 'GET', `/orders/${orderId}/vouchers`, res);
  for (const v of res.data.data) say.item(`voucher ${v.voucher_id}  ${formatMoney(v.denomination, currency)}  code ${maskCode(v.code)}${v.pin ? '  pin ••••' : ''}`);
  say.explain(`To see them in full: vouchers orders codes ${orderId} --reveal (or --codes-out FILE, mode 0600).`);
  return res.data.data.length;
}

export async function money(ctx: StepContext): Promise<void> {
  const { say, client, f } = ctx;
  const wallets = await listWallets(client, { signal: f.io.signal });
  show(ctx, 'GET', '/wallets', wallets);
  for (const w of wallets.data.data) say.item(`${w.currency}  available ${formatMoney(w.available, w.currency).padStart(16)}  reserved ${formatMoney(w.reserved, w.currency)}`);
  const tx = await listTransactions(client, { limit: 4 }, { signal: f.io.signal });
  show(ctx, 'GET', '/transactions?limit=4', tx);
  for (const t of tx.data.data) {
    say.item(`${t.transaction_id}  ${t.type.padEnd(12)} ${formatMoney(t.amount, t.currency).padStart(12)}  balance ${formatMoney(t.balance_after, t.currency)}${t.order_id ? `  ${t.order_id}` : ''}`);
  }
  say.explain('Every order debited the wallet in one ledger entry (ORDER_DEBIT); refunds and payouts appear here too,\nnewest first, each with the balance after it.');
}
