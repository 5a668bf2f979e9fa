/**
 * The endpoint table: every path of the document and of the decisions file, with its
 * parameters, request and response schemas, the errors it can answer, its rate-limit class
 * and whether it is signed, idempotent or an extension. The sandbox routes from it, the
 * client validates responses with it, and the OpenAPI document is generated from it.
 */
import * as z from 'zod';
import { Category, Product, ProductDetail } from './catalog.js';
import { Country, Currency, DateOnly, listEnvelope, OrderId, PAGE_LIMIT } from './common.js';
import type { ErrorCode } from './errors.js';
import { CreateOrderRequest, Order, OrderCodes, OrderStatus } from './orders.js';
import { CreatePayoutRequest, Payout, Transaction, TransactionType, Wallet } from './money.js';
import { ReconciliationReport } from './reconciliation.js';
import { RegisterWebhookRequest, WebhookEndpoint } from './webhooks.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type RateClass = 'orders' | 'general';

export interface Endpoint {
  /** Stable operation id, also the name of the typed call in `api/`. */
  id: string;
  method: HttpMethod;
  /** Path relative to the base URL, with `{param}` placeholders. */
  path: string;
  summary: string;
  pathParams?: Record<string, z.ZodType>;
  query?: Record<string, z.ZodType>;
  request?: z.ZodType;
  /** Success responses by status. `null` = no body. */
  responses: Record<number, z.ZodType | null>;
  errors: ErrorCode[];
  /** Rate-limit class charged (every call is also charged to `general`). */
  rateClass: RateClass;
  signed: boolean;
  idempotency: 'required' | 'optional' | 'none';
  /** Not in the API document: decided in the decisions file. */
  extension: boolean;
  /** Planned in the document, not built; served by the sandbox only on request. */
  planned?: boolean;
}

const COMMON_ERRORS: ErrorCode[] = ['AUTHENTICATION_FAILED', 'IP_NOT_ALLOWED', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
const WRITE_ERRORS: ErrorCode[] = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_WINDOW', 'MALFORMED_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED'];
const IDEMPOTENCY_ERRORS: ErrorCode[] = ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'];

const limit = z.coerce.number().int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max).meta({ description: `Page size ${PAGE_LIMIT.min}–${PAGE_LIMIT.max}, default ${PAGE_LIMIT.default}` });
const cursor = z.string().min(1).meta({ description: 'Opaque cursor from next_cursor' });

export const ENDPOINTS = [
  {
    id: 'listCategories', method: 'GET', path: '/categories', summary: "List the categories open to the partner's organisation",
    query: { limit, cursor },
    responses: { 200: listEnvelope(Category) }, errors: [...COMMON_ERRORS, 'VALIDATION_FAILED'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false,
  },
  {
    id: 'listProducts', method: 'GET', path: '/products', summary: 'List products, filtered by currency, country and category',
    query: { currency: Currency, country: Country, category_id: z.string(), limit, cursor },
    responses: { 200: listEnvelope(Product) }, errors: [...COMMON_ERRORS, 'VALIDATION_FAILED'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false,
  },
  {
    id: 'getProduct', method: 'GET', path: '/products/{product_id}', summary: 'One product with its full denominations and availability',
    pathParams: { product_id: z.string() },
    responses: { 200: ProductDetail }, errors: [...COMMON_ERRORS, 'NOT_FOUND', 'PRODUCT_NOT_AVAILABLE'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false,
  },
  {
    id: 'createOrder', method: 'POST', path: '/orders', summary: 'Place an order: 201 with vouchers on a cache-hit, 202 PENDING on a cache-miss',
    request: CreateOrderRequest,
    responses: { 201: Order, 202: Order },
    errors: [...COMMON_ERRORS, ...WRITE_ERRORS, ...IDEMPOTENCY_ERRORS, 'INSUFFICIENT_FUNDS', 'PRODUCT_NOT_AVAILABLE', 'NOT_FOUND', 'INSUFFICIENT_INVENTORY'],
    rateClass: 'orders', signed: true, idempotency: 'required', extension: false,
  },
  {
    id: 'listOrders', method: 'GET', path: '/orders', summary: 'List orders, newest first',
    query: { status: OrderStatus, reference: z.string(), created_from: DateOnly, created_to: DateOnly, limit, cursor },
    responses: { 200: listEnvelope(Order) }, errors: [...COMMON_ERRORS, 'VALIDATION_FAILED'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: true,
  },
  {
    id: 'getOrder', method: 'GET', path: '/orders/{order_id}', summary: 'Order status, vouchers (codes masked) and fulfilment timeline',
    pathParams: { order_id: OrderId },
    responses: { 200: Order }, errors: [...COMMON_ERRORS, 'NOT_FOUND'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false,
  },
  {
    id: 'getOrderCodes', method: 'GET', path: '/orders/{order_id}/vouchers', summary: "The secure code endpoint: the order's issued codes and pins (every access is recorded)",
    pathParams: { order_id: OrderId },
    responses: { 200: OrderCodes }, errors: [...COMMON_ERRORS, 'NOT_FOUND'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: true,
  },
  {
    id: 'cancelOrder', method: 'POST', path: '/orders/{order_id}/cancel', summary: 'Cancel a PENDING order; the debit is refunded',
    pathParams: { order_id: OrderId },
    responses: { 200: Order },
    errors: [...COMMON_ERRORS, ...WRITE_ERRORS, 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'NOT_FOUND', 'ORDER_NOT_CANCELLABLE'],
    rateClass: 'general', signed: true, idempotency: 'optional', extension: true,
  },
  {
    id: 'listWallets', method: 'GET', path: '/wallets', summary: 'Wallet balances per settlement currency',
    responses: { 200: listEnvelope(Wallet) }, errors: [...COMMON_ERRORS],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false,
  },
  {
    id: 'listTransactions', method: 'GET', path: '/transactions', summary: 'Transaction history, newest first, cursor-paginated',
    query: { from: DateOnly, to: DateOnly, order_id: OrderId, type: TransactionType, limit, cursor },
    responses: { 200: listEnvelope(Transaction) }, errors: [...COMMON_ERRORS, 'VALIDATION_FAILED'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false,
  },
  {
    id: 'createPayout', method: 'POST', path: '/payouts', summary: "Withdraw wallet funds to the partner's account on file",
    request: CreatePayoutRequest,
    responses: { 201: Payout },
    errors: [...COMMON_ERRORS, ...WRITE_ERRORS, ...IDEMPOTENCY_ERRORS, 'INSUFFICIENT_FUNDS'],
    rateClass: 'general', signed: true, idempotency: 'required', extension: false,
  },
  {
    id: 'registerWebhook', method: 'POST', path: '/webhooks', summary: "Register (201) or update (200) the partner's webhook endpoint",
    request: RegisterWebhookRequest,
    responses: { 200: WebhookEndpoint, 201: WebhookEndpoint },
    errors: [...COMMON_ERRORS, ...WRITE_ERRORS, 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'],
    rateClass: 'general', signed: true, idempotency: 'optional', extension: false,
  },
  {
    id: 'getWebhook', method: 'GET', path: '/webhooks', summary: 'The registered webhook endpoint (no secret)',
    responses: { 200: WebhookEndpoint }, errors: [...COMMON_ERRORS, 'NOT_FOUND'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: true,
  },
  {
    id: 'deleteWebhook', method: 'DELETE', path: '/webhooks', summary: 'Remove the webhook endpoint',
    responses: { 204: null }, errors: [...COMMON_ERRORS, 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_WINDOW', 'NOT_FOUND'],
    rateClass: 'general', signed: true, idempotency: 'none', extension: true,
  },
  {
    id: 'getReconciliation', method: 'GET', path: '/reconciliation/{date}', summary: 'Daily reconciliation report (planned; contract may change)',
    pathParams: { date: DateOnly },
    responses: { 200: ReconciliationReport }, errors: [...COMMON_ERRORS, 'NOT_FOUND', 'VALIDATION_FAILED'],
    rateClass: 'general', signed: false, idempotency: 'none', extension: false, planned: true,
  },
] as const satisfies readonly Endpoint[];

export type EndpointId = (typeof ENDPOINTS)[number]['id'];

export function endpoint(id: EndpointId): Endpoint {
  const found = ENDPOINTS.find((e) => e.id === id);
  if (!found) throw new Error(`unknown endpoint ${id}`);
  return found;
}

/** Fill `{param}` placeholders, URL-encoding each value. */
export function expandPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Find the endpoint a concrete method and path (relative to the base URL, no query) belong to. */
export function matchEndpoint(method: string, path: string): { endpoint: Endpoint; params: Record<string, string> } | { methodNotAllowed: true } | undefined {
  let pathMatched = false;
  for (const e of ENDPOINTS as readonly Endpoint[]) {
    const names: string[] = [];
    const re = new RegExp('^' + e.path.replace(/\{(\w+)\}/g, (_, n: string) => { names.push(n); return '([^/]+)'; }) + '/?$');
    const m = re.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (e.method !== method.toUpperCase()) continue;
    const params: Record<string, string> = {};
    names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1] ?? ''); });
    return { endpoint: e, params };
  }
  return pathMatched ? { methodNotAllowed: true } : undefined;
}
