/** What several checks do: read a balance, place an order, find the product a role orders. */
import { getProduct } from '../../api/catalog.js';
import { createOrder, type OrderResponse } from '../../api/orders.js';
import { listWallets } from '../../api/wallets.js';
import { endpointRecord, endpointUrlOf, registerWebhook } from '../../api/webhooks.js';
import { EVENT_TYPES } from '../../contract/events.js';
import { amountValue, toMinor } from '../../contract/money-format.js';
import { ApiError } from '../../core/errors/index.js';
import type { SecretOrigin } from '../listener.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import { offeredDenominations, pickDenomination, productCurrency, roleDef } from '../products.js';
import type { CheckContext, FixtureProduct, PlacedOrder, ProductChoice, ProductRole } from '../types.js';

/** The available balance of a wallet in minor units (undefined when the server has none in that currency or names it otherwise). */
export async function walletMinor(ctx: CheckContext, currency: string): Promise<number | undefined> {
  const res = await listWallets(ctx.client, { signal: ctx.signal });
  const wallet = res.data.data.find((w) => w?.currency === currency);
  const available = amountValue(wallet?.available);
  return available === undefined ? undefined : toMinor(available, currency);
}

const known = new WeakMap<object, Map<ProductRole, Promise<FixtureProduct | undefined>>>();

/** Why a check is skipped when the server has no product for its role, and the option that names one. */
function missingText(ctx: CheckContext, role: ProductRole): string {
  const choice = ctx.fixtures[role];
  const def = roleDef(role);
  const option = `--product ${def.name}=ID[:DENOMINATION]`;
  if (choice.from === 'option')
    return `this server has no product ${choice.id} (named by --product ${def.name}=${choice.id}): check the id with vouchers products list`;
  if (choice.from === 'profile')
    return `this server has no product ${choice.id} (the profile's certify.product.${def.name}): check the id with vouchers products list, or name another with ${option}`;
  return `this server has no test product ${choice.id} (the sandbox's product for ${def.does}): name one of this server's products with ${option}`;
}

/**
 * The product a check orders for `role`, with the denomination and currency of its orders:
 * as named, else read from GET /products/{id} (the smallest denomination offered, the
 * product's currency), else the fallback. Looked up once a run. Skips the check, naming the
 * option that fixes it, when the server has no such product (404, 403).
 */
export async function requireProduct(ctx: CheckContext, role: ProductRole): Promise<FixtureProduct> {
  let cache = known.get(ctx.shared);
  if (!cache) known.set(ctx.shared, (cache = new Map()));
  const choice = ctx.fixtures[role];
  let found = cache.get(role);
  if (!found) {
    found = lookUp(ctx, role, choice);
    cache.set(role, found);
  }
  const product = await found;
  const uses = (ctx.shared.products ??= {});
  if (!product) {
    const use = (uses[role] ??= { found: false, skipped: [] });
    if (ctx.checkId && !use.skipped.includes(ctx.checkId)) use.skipped.push(ctx.checkId);
    throw new CheckSkip(missingText(ctx, role));
  }
  return product;
}

/** Whether GET /wallets was answered 404 in this run: every path is missing, as under a base URL without its /api/v1. */
function wrongBaseUrl(ctx: CheckContext): boolean {
  return (ctx.requests?.() ?? []).some((r) => r.method === 'GET' && r.path.endsWith('/wallets') && r.status === 404);
}

async function lookUp(ctx: CheckContext, role: ProductRole, choice: ProductChoice): Promise<FixtureProduct | undefined> {
  let record: unknown;
  try {
    record = (await getProduct(ctx.client, choice.id, { signal: ctx.signal })).data;
  } catch (e) {
    // A 404 to GET /wallets too says the base URL is wrong (no /api/v1), not that the product is missing.
    if (e instanceof ApiError && e.status === 404 && wrongBaseUrl(ctx))
      throw new CheckFailure(
        `not checked: GET /products/${choice.id} answered HTTP 404${e.code ? ` ${e.code}` : ''}, as GET /wallets did: the base URL may be wrong (it must include /api/v1)`,
      );
    if (e instanceof ApiError && (e.status === 404 || e.status === 403)) return undefined;
    throw e;
  }
  const offered = offeredDenominations(record);
  const denomination = choice.denomination ?? pickDenomination(record, role) ?? ctx.fixtures.denomination;
  const currency = choice.currency ?? productCurrency(record) ?? ctx.fixtures.currency;
  const name = `--product ${roleDef(role).name}=${choice.id}`;
  if (choice.denomination !== undefined && offered.length > 0 && !offered.includes(choice.denomination))
    ctx.warn(`${name}:${choice.denomination}: the product lists ${offered.join(', ')}, not ${choice.denomination}; ordered as named`);
  // A product the partner named: the fallback is a guess worth saying (the sandbox's ids keep their 10).
  else if (choice.denomination === undefined && offered.length === 0 && (choice.from === 'option' || choice.from === 'profile'))
    ctx.warn(
      `product ${choice.id} lists no denomination certify can read: ordering ${denomination} ${currency}; name one with ${name}:DENOMINATION`,
    );
  (ctx.shared.products ??= {})[role] = { found: true, denomination, currency, skipped: [] };
  return { id: choice.id, denomination, currency };
}

export interface OrderPlan {
  /** What is ordered: a product, with the denomination of its orders when known. */
  product: { id: string; denomination?: number };
  quantity?: number;
  denomination?: number;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** The body of an order plan, as sent. */
export function orderBody(ctx: CheckContext, plan: OrderPlan) {
  const denomination = plan.denomination ?? plan.product.denomination ?? ctx.fixtures.denomination;
  return {
    items: [{ product_id: plan.product.id, denomination, quantity: plan.quantity ?? 1 }],
  };
}

/** Place an order through the CLI's client (retries, same key) and remember it for the ledger checks. */
export async function placeOrder(ctx: CheckContext, plan: OrderPlan): Promise<OrderResponse> {
  const body = orderBody(ctx, plan);
  const key = plan.idempotencyKey ?? globalThis.crypto.randomUUID();
  const res = await createOrder(ctx.client, body, { idempotencyKey: key, signal: ctx.signal, headers: plan.headers });
  if (!res.data.order_id)
    throw new CheckFailure('the order was accepted but its answer names no order id', {
      expected: 'an order with order_id',
      actual: `HTTP ${res.status}`,
    });
  if (!ctx.shared.orders.some((o) => o.order_id === res.data.order_id)) ctx.shared.orders.push(placedOf(res));
  return res;
}

export function placedOf(res: OrderResponse): PlacedOrder {
  const total = amountValue(res.data.total_amount) ?? 0;
  return { order_id: res.data.order_id, total_amount: total, currency: res.data.currency };
}

/**
 * Milliseconds to allow for asynchronous work that takes `realMs` at the server's real pace:
 * at least SCALED_FLOOR_MS of real time. Against the sandbox's quick clock the work itself
 * takes well under a second, but a busy machine (a CI runner with other jobs) can hold its
 * scheduler, its delivery and the listener up for seconds; every wait ends as soon as what
 * it waits for comes, so the floor costs time only when it never does.
 */
export function scaled(ctx: CheckContext, realMs: number): number {
  return Math.max(SCALED_FLOOR_MS, Math.round(realMs * ctx.timeScale));
}

export const SCALED_FLOOR_MS = 10_000;

export interface ListenerRegistration {
  /** HTTP status of the registration that gave the secret (201 created, 200 updated). */
  status: number;
  webhook_id: string | undefined;
  /** The URL the server now delivers to. */
  url: string;
  /** Whether an existing endpoint's secret had to be rotated to learn one. */
  rotated: boolean;
  /** What deliveries are verified with: the secret the answer carried, or the profile's (none came back). */
  secretFrom: 'returned' | 'profile';
  traceId: string | undefined;
}

/**
 * Register our listener as the partner's webhook endpoint (POST /webhooks with its URL) and
 * have it verify deliveries with the signing secret the answer carries. An existing endpoint
 * answers without a secret: it is then registered again with `rotate_secret` (the old secret
 * stays valid for the rotation window). Sets `ctx.shared.webhookRegistered`. Skips without a
 * listener; fails when no secret comes back. The secret is never returned or printed.
 */
export async function registerListener(ctx: CheckContext): Promise<ListenerRegistration> {
  const listener = ctx.listener;
  if (!listener) throw new CheckSkip('no listener runs here: webhook deliveries cannot reach this machine');
  ctx.shared.webhookRegistered = false;
  const url = listener.url;
  let rotated = false;
  // A partner's endpoint may take only some event types, which the server keeps when it is
  // pointed elsewhere: the listener asks for every one the checks wait for (the endpoint's
  // own are put back with it afterwards).
  const existing = ctx.shared.existingWebhook;
  const events = existing?.state === 'registered' && existing.events?.length ? { events: [...EVENT_TYPES] } : {};
  let res = await registerWebhook(ctx.client, { url, ...events }, { signal: ctx.signal });
  // From here the endpoint points at the listener, whatever comes next: it is put back.
  ctx.shared.endpointReplaced = true;
  let secret = res.data?.signing_secret;
  let secretFrom: ListenerRegistration['secretFrom'] = 'returned';
  if (typeof secret !== 'string' || secret === '') {
    // The endpoint existed. Its secret is the partner's: rotating it would break their
    // receiver, so only the embedded sandbox's is rotated; elsewhere the profile's is used.
    if (ctx.shared.mayRotateSecret) {
      res = await registerWebhook(ctx.client, { url, rotate_secret: true, ...events }, { signal: ctx.signal });
      rotated = true;
      secret = res.data?.signing_secret;
    } else if (ctx.shared.knownWebhookSecret) {
      secret = ctx.shared.knownWebhookSecret;
      secretFrom = 'profile';
    } else {
      throw new CheckSkip(
        "your webhook endpoint already exists and its signing secret is not in the profile: certify will not rotate it (your receiver would stop verifying); save it as the profile's webhook_secret (vouchers profiles set, with --stdin) or in VOUCHERS_WEBHOOK_SECRET",
      );
    }
  }
  if (typeof secret !== 'string' || secret === '') {
    throw new CheckFailure('POST /webhooks answered without a signing secret, so deliveries cannot be verified', {
      expected: 'signing_secret in the answer (on creation, or with rotate_secret: true)',
      actual: `HTTP ${res.status} without a secret`,
      reproduce: ctx.raw.command(['webhooks', 'register', '--url', url]),
    });
  }
  listener.setSecrets([secret], secretOrigin(ctx, secretFrom));
  ctx.shared.webhookRegistered = true;
  ctx.shared.ordersBeforeRegistration = ctx.shared.orders.map((o) => o.order_id);
  // The URL the answer names (under any of the usual names), when it names one.
  const record = endpointRecord(res.data);
  const answered = record ? endpointUrlOf(record) : undefined;
  if (answered !== undefined && answered !== url)
    ctx.warn(`POST /webhooks asked for ${url}, and the answer names ${answered}: the deliveries of this run may not reach the listener`);
  return { status: res.status, webhook_id: res.data?.webhook_id, url: answered ?? url, rotated, secretFrom, traceId: res.traceId };
}

/** The secret deliveries are verified with, in words, and what a signature that does not verify with it means. */
function secretOrigin(ctx: CheckContext, from: ListenerRegistration['secretFrom']): SecretOrigin {
  if (from === 'returned')
    return {
      what: 'the signing secret POST /webhooks returned',
      cause:
        'the server signs its deliveries with another secret than the one POST /webhooks returned, or signs other bytes than the body it sends',
    };
  const name = ctx.shared.profileName;
  const prefix = name ? `vouchers --profile ${name}` : 'vouchers';
  const existing = ctx.shared.existingWebhook;
  const url = existing?.state === 'registered' ? existing.url : 'URL';
  return {
    what: `the profile's webhook_secret (the endpoint already existed, so POST /webhooks returned none)`,
    cause: `wrong webhook secret in the profile: it is not the endpoint's signing secret; fix: ${prefix} webhooks register --url ${url} --rotate-secret (a new secret, saved to the profile; your receiver needs it too), or set the right one: vouchers profiles set ${name ?? 'NAME'} webhook_secret --stdin (or VOUCHERS_WEBHOOK_SECRET)`,
  };
}
