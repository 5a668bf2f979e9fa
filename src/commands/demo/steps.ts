/**
 * The demo's steps, each made of real requests through the normal client (signed writes,
 * trace IDs shown) and the api/ calls the partner commands use. Codes are always masked.
 */
import { listCategories, listProducts } from '../../api/catalog.js';
import { isRouteMissing } from '../../api/not-offered.js';
import { createOrder, followOrder, getOrder, getOrderCodes } from '../../api/orders.js';
import { listTransactions } from '../../api/transactions.js';
import { listWallets } from '../../api/wallets.js';
import type { Order } from '../../contract/orders.js';
import type { ApiClient, ApiResponse } from '../../core/http/types.js';
import { formatMoney, maskCode } from '../../core/output/format.js';
import { fitsLayout } from '../../core/output/generic.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { shownCode } from '../orders/redact.js';
import type { Factory } from '../../core/run/factory.js';
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
  /** Shared by the steps: whether the server's own shapes were explained already. */
  driftTold?: { value: boolean };
}

export function show(ctx: StepContext, method: string, path: string, res: ApiResponse<unknown>): void {
  ctx.requests.push({ method, path, status: res.status, trace_id: res.traceId ?? null });
  ctx.say.request(method, path, res.status, res.traceId);
}

/** The first of `keys` a record of any shape carries, as text (a server may name its fields otherwise). */
function pick(record: unknown, ...keys: string[]): string {
  if (record === null || typeof record !== 'object') return '';
  const r = record as Record<string, unknown>;
  for (const k of keys) {
    const v = r[k];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
    if (Array.isArray(v)) return v.join('/');
  }
  return '';
}

/** A record of a shape the demo does not know, on one line: its fields, secrets and codes masked. */
function asLine(record: unknown): string {
  const masked = maskSecrets(maskCodes(record));
  if (masked === null || typeof masked !== 'object') return String(masked);
  return Object.entries(masked as Record<string, unknown>)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join('  ');
}

/** Said once when a server answers in shapes other than the decisions file's. */
function noteDrift(ctx: StepContext, res: ApiResponse<unknown>): void {
  if (!res.drift || ctx.driftTold?.value) return;
  if (ctx.driftTold) ctx.driftTold.value = true;
  ctx.say.explain(
    `This server answers in shapes of its own (where this version expects ${res.drift.fields.slice(0, 3).join(', ') || res.drift.issues[0]}): the CLI shows what it sent, with one warning per run, and reads what it can. --strict-contract would make it an error.`,
  );
}

export async function catalog(ctx: StepContext): Promise<{ categories: number; products: number }> {
  const { say, client, f } = ctx;
  say.explain(
    'Reads authenticate with two headers, X-API-Key and X-API-Secret; they need no signature.\nThe server answers every request with an X-Trace-ID: quote it to support.',
  );
  const cats = await listCategories(client, { signal: f.io.signal });
  show(ctx, 'GET', '/categories', cats);
  noteDrift(ctx, cats);
  say.item(
    `${cats.data.data.length} categories open to this partner: ${cats.data.data.map((c) => pick(c, 'category_id', 'id', 'name', 'title')).join(', ')}`,
  );
  const products = await listProducts(client, { category_id: 'sandbox' }, { signal: f.io.signal });
  show(ctx, 'GET', '/products?category_id=sandbox', products);
  const SHOWN = 8;
  for (const p of products.data.data.slice(0, SHOWN)) {
    say.item(
      `${say.c.bold(pick(p, 'product_id', 'id').padEnd(18))} ${pick(p, 'currency')} ${pick(p, 'denominations')}  ${pick(p, 'name', 'title')}`,
    );
  }
  if (products.data.data.length > SHOWN) say.item(`… and ${products.data.data.length - SHOWN} more`);
  say.explain('The sbx-* products are deterministic: each always takes one fulfilment path.');
  return { categories: cats.data.data.length, products: products.data.data.length };
}

function vouchersLine(order: Order): string[] {
  // A server of another dialect may give no voucher id or denomination: the parts it gives.
  return order.vouchers.map((v) =>
    [
      `voucher ${v.voucher_id || v.product_id}`,
      formatMoney(v.denomination, order.currency),
      `code ${shownCode(v, false)}`,
      `expires ${v.expiry ?? 'never'}`,
    ]
      .filter((x) => x.trim() !== '')
      .join('  '),
  );
}

export async function instantOrder(ctx: StepContext): Promise<Order> {
  const { say, client, f } = ctx;
  const key = f.ids.idempotencyKey();
  say.explain(
    'A write is signed: X-Timestamp and X-Signature (HMAC-SHA256 of timestamp + method + path + body).\nIdempotency-Key makes a retry safe: the same key never orders twice.',
  );
  const res = await createOrder(
    client,
    { items: [{ product_id: 'sbx-instant', denomination: 25, quantity: 2 }], reference: 'demo-cache-hit' },
    { idempotencyKey: key, signal: f.io.signal },
  );
  show(ctx, 'POST', '/orders', res);
  const order = res.data;
  say.ok(
    `${order.order_id} ${say.c.green(order.status)} from ${order.fulfilled_from ?? 'cache'}: ${formatMoney(order.total_amount, order.currency)} debited  ${say.c.dim(`Idempotency-Key ${key}`)}`,
  );
  for (const l of vouchersLine(order)) say.item(l);
  say.explain(
    `It fit the cache, so the answer (${res.status}) has the codes in the body (masked here, as the CLI always does unless you pass --reveal).`,
  );
  return order;
}

export async function asyncOrder(ctx: StepContext, waitForEvents: (orderId: string) => Promise<void>): Promise<Order> {
  const { say, client, f } = ctx;
  const res = await createOrder(
    client,
    { items: [{ product_id: 'sbx-async', denomination: 50, quantity: 1 }], reference: 'demo-async' },
    { idempotencyKey: f.ids.idempotencyKey(), signal: f.io.signal },
  );
  show(ctx, 'POST', '/orders', res);
  const orderId = res.data.order_id;
  say.ok(`${orderId} ${say.c.yellow(res.data.status)}: accepted (${res.status}), fulfilled by the vendor in the background`);
  say.explain('Following it with GET /orders/{id} until a final status:');
  await say.startSpinner(`Waiting for ${orderId}…`);
  let result;
  try {
    result = await followOrder(client, orderId, {
      clock: f.clock,
      signal: f.io.signal,
      timeoutMs: 60_000,
      initialIntervalMs: 200,
      maxIntervalMs: 400,
      initial: { order: res.data, traceId: res.traceId, received: res.received },
      onStatus: (o, r) => {
        if (r.status && r.text !== '')
          ctx.requests.push({ method: 'GET', path: `/orders/${orderId}`, status: r.status, trace_id: r.traceId ?? null });
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
  say.explain(
    'Order reads show only the last 4 characters of a code. The full codes come from one secure endpoint, and the server records every call with its trace ID.',
  );
  let rows: { voucher_id: string; product_id: string; denomination: unknown; code: string; pin?: string | null }[];
  try {
    const res = await getOrderCodes(client, orderId, { signal: f.io.signal });
    show(ctx, 'GET', `/orders/${orderId}/vouchers`, res);
    rows = res.data.data;
  } catch (error) {
    if (!isRouteMissing(error)) throw error;
    // A server without the secure endpoint (an extension): the document says GET /orders/{id}
    // returns the allocated vouchers, so their codes are read from there.
    const res = await getOrder(client, orderId, { signal: f.io.signal });
    show(ctx, 'GET', `/orders/${orderId}`, res);
    say.explain(
      'This server has no secure code endpoint (GET /orders/{id}/vouchers is our extension): the codes come with the order itself, as the API document says GET /orders/{id} returns the allocated vouchers.',
    );
    rows = res.data.vouchers
      .filter((v) => typeof v.code === 'string' && v.code !== '')
      .map((v) => ({ voucher_id: v.voucher_id, product_id: v.product_id, denomination: v.denomination, code: v.code ?? '', pin: v.pin }));
  }
  for (const v of rows)
    say.item(
      [
        `voucher ${v.voucher_id || v.product_id}`,
        formatMoney(v.denomination as number, currency),
        `code ${maskCode(v.code)}`,
        v.pin ? 'pin ••••' : '',
      ]
        .filter((x) => x !== '')
        .join('  '),
    );
  // This order lives in the demo's own sandbox, gone when the demo ends: the command is
  // shown for an order of the user's own.
  say.explain(
    "To see codes in full: vouchers orders codes ORDER_ID --reveal (or --codes-out FILE, mode 0600), for an order of your own: this one was in the demo's sandbox, gone when the demo ends.",
  );
  return rows.length;
}

export async function money(ctx: StepContext): Promise<void> {
  const { say, client, f } = ctx;
  const wallets = await listWallets(client, { signal: f.io.signal });
  show(ctx, 'GET', '/wallets', wallets);
  for (const w of wallets.data.data) {
    say.item(
      fitsLayout(w, ['currency', 'available'])
        ? `${w.currency}  available ${formatMoney(w.available, w.currency).padStart(16)}  reserved ${formatMoney(w.reserved, w.currency)}`
        : asLine(w),
    );
  }
  const tx = await listTransactions(client, { limit: 4 }, { signal: f.io.signal });
  show(ctx, 'GET', '/transactions?limit=4', tx);
  // A list without pagination is the whole history: the demo shows its first four.
  for (const t of tx.data.data.slice(0, 4)) {
    const laidOut = fitsLayout(t, ['transaction_id', 'type', 'amount', 'currency']);
    say.item(
      laidOut
        ? `${t.transaction_id}  ${t.type.padEnd(12)} ${formatMoney(t.amount, t.currency).padStart(12)}  balance ${formatMoney(t.balance_after, t.currency)}${t.order_id ? `  ${t.order_id}` : ''}`
        : asLine(t),
      // Wrapped, the rest goes on under the type, not where the next transaction starts.
      laidOut ? t.transaction_id.length + 2 : 2,
    );
  }
  say.explain(
    tx.drift
      ? "Every order debited the wallet in one ledger entry; refunds and payouts appear here too, newest first (in this server's own words)."
      : 'Every order debited the wallet in one ledger entry (ORDER_DEBIT); refunds and payouts appear here too, newest first, each with the balance after it.',
  );
}
