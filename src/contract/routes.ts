/**
 * The routes of the API without their schemas: method, path, rate-limit class, signing,
 * idempotency, errors, extension. No zod here, so the request pipeline can find what it
 * needs to send a request without loading the schemas (endpoints.ts adds them, for
 * validation, the sandbox and the OpenAPI document).
 */
import type { ErrorCode } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type RateClass = 'orders' | 'general';

export interface Route {
  /** Stable operation id, also the name of the typed call in `api/`. */
  id: string;
  method: HttpMethod;
  /** Path relative to the base URL, with `{param}` placeholders. */
  path: string;
  summary: string;
  errors: ErrorCode[];
  /** Rate-limit class charged (every call is also charged to `general`). */
  rateClass: RateClass;
  signed: boolean;
  idempotency: 'required' | 'optional' | 'none';
  /** Not in the API document: decided in the decisions file. */
  extension: boolean;
  /** Planned in the document, not built; served by the sandbox only on request. */
  planned?: boolean;
  /** Answers a list (`{"data":[…],"has_more","next_cursor"}` in the decisions file). */
  list?: boolean;
  /**
   * Answers one resource, whose id is this field (a daily report's is its `date`): a server
   * that wraps it (`{"data": {…}}`, `{"order": {…}}`) is read from inside the wrapper.
   */
  record?: string;
  /**
   * A server may answer the one resource as a list of it (`{"data": [{…}]}`, `[{…}]`,
   * `{"webhooks": [{…}]}`): a server that lists the partner's webhook endpoints. Its one entry
   * is read as the resource (by its `record` id field), and the warning says it was a list.
   */
  listOfOne?: boolean;
  /**
   * Fields that mark a record as the resource when it lacks its `record` id field (a webhook
   * endpoint without its `webhook_id` is still one by its `url`): a wrapped record or the
   * one entry of a list is then read from inside all the same, and the warning names the id
   * as missing, not every field of the resource.
   */
  recordAlso?: readonly string[];
  /**
   * A list of one row per currency, which a server may send as an object keyed by currency
   * code (`{"USD": {…}}`, `{"balances": {"USD": 100}}`): read as one row per key, a plain
   * amount as the row's field named here (core/http/by-currency.ts).
   */
  byCurrency?: { amount: string };
}

/** The names a server may give the URL a webhook endpoint delivers to (`url`, `endpoint`, `endpoint_url`, …). */
export const WEBHOOK_URL_FIELDS = ['url', 'endpoint', 'endpoint_url', 'webhook_url', 'target_url', 'callback_url', 'uri'] as const;

/** Every endpoint's: VALIDATION_FAILED too, for a query parameter it does not take, a value it does not accept or one given twice. */
const COMMON_ERRORS: ErrorCode[] = [
  'AUTHENTICATION_FAILED',
  'VALIDATION_FAILED',
  'IP_NOT_ALLOWED',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];
const WRITE_ERRORS: ErrorCode[] = [
  'INVALID_SIGNATURE',
  'TIMESTAMP_OUT_OF_WINDOW',
  'MALFORMED_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
];
const IDEMPOTENCY_ERRORS: ErrorCode[] = ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'];

export const ROUTES = [
  {
    id: 'listCategories',
    method: 'GET',
    path: '/categories',
    summary: "List the categories open to the partner's organisation",
    errors: [...COMMON_ERRORS],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    list: true,
  },
  {
    id: 'listProducts',
    method: 'GET',
    path: '/products',
    summary: 'List products, filtered by currency, country and category',
    errors: [...COMMON_ERRORS],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    list: true,
  },
  {
    id: 'getProduct',
    method: 'GET',
    path: '/products/{product_id}',
    summary: 'One product with its full denominations and availability',
    errors: [...COMMON_ERRORS, 'NOT_FOUND', 'PRODUCT_NOT_AVAILABLE'],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    record: 'product_id',
  },
  {
    id: 'createOrder',
    method: 'POST',
    path: '/orders',
    summary: 'Place an order: 201 with vouchers on a cache-hit, 202 PENDING on a cache-miss',
    errors: [
      ...COMMON_ERRORS,
      ...WRITE_ERRORS,
      ...IDEMPOTENCY_ERRORS,
      'INSUFFICIENT_FUNDS',
      'PRODUCT_NOT_AVAILABLE',
      'NOT_FOUND',
      'INSUFFICIENT_INVENTORY',
    ],
    rateClass: 'orders',
    signed: true,
    idempotency: 'required',
    extension: false,
    record: 'order_id',
  },
  {
    id: 'listOrders',
    method: 'GET',
    path: '/orders',
    summary: 'List orders, newest first',
    errors: [...COMMON_ERRORS],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: true,
    list: true,
  },
  {
    id: 'getOrder',
    method: 'GET',
    path: '/orders/{order_id}',
    summary: 'Order status, vouchers (codes masked) and fulfilment timeline',
    errors: [...COMMON_ERRORS, 'NOT_FOUND'],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    record: 'order_id',
  },
  {
    id: 'getOrderCodes',
    method: 'GET',
    path: '/orders/{order_id}/vouchers',
    summary: "The secure code endpoint: the order's issued codes and pins (every access is recorded)",
    errors: [...COMMON_ERRORS, 'NOT_FOUND'],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: true,
  },
  {
    id: 'cancelOrder',
    method: 'POST',
    path: '/orders/{order_id}/cancel',
    summary: 'Cancel a PENDING order; the debit is refunded',
    errors: [
      ...COMMON_ERRORS,
      ...WRITE_ERRORS,
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_KEY_IN_PROGRESS',
      'NOT_FOUND',
      'ORDER_NOT_CANCELLABLE',
    ],
    rateClass: 'general',
    signed: true,
    idempotency: 'optional',
    extension: true,
    record: 'order_id',
  },
  {
    id: 'listWallets',
    method: 'GET',
    path: '/wallets',
    summary: 'Wallet balances per settlement currency',
    errors: [...COMMON_ERRORS],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    list: true,
    byCurrency: { amount: 'available' },
  },
  {
    id: 'listTransactions',
    method: 'GET',
    path: '/transactions',
    summary: 'Transaction history, newest first, cursor-paginated',
    errors: [...COMMON_ERRORS],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    list: true,
  },
  {
    id: 'createPayout',
    method: 'POST',
    path: '/payouts',
    summary: "Withdraw wallet funds to the partner's account on file",
    errors: [...COMMON_ERRORS, ...WRITE_ERRORS, ...IDEMPOTENCY_ERRORS, 'INSUFFICIENT_FUNDS'],
    rateClass: 'general',
    signed: true,
    idempotency: 'required',
    extension: false,
    record: 'payout_id',
  },
  {
    id: 'registerWebhook',
    method: 'POST',
    path: '/webhooks',
    summary: "Register (201) or update (200) the partner's webhook endpoint",
    errors: [...COMMON_ERRORS, ...WRITE_ERRORS, 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'],
    rateClass: 'general',
    signed: true,
    idempotency: 'optional',
    extension: false,
    record: 'webhook_id',
    recordAlso: WEBHOOK_URL_FIELDS,
  },
  {
    id: 'getWebhook',
    method: 'GET',
    path: '/webhooks',
    summary: 'The registered webhook endpoint (no secret)',
    errors: [...COMMON_ERRORS, 'WEBHOOK_NOT_REGISTERED'],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: true,
    record: 'webhook_id',
    recordAlso: WEBHOOK_URL_FIELDS,
    listOfOne: true,
  },
  {
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks',
    summary: 'Remove the webhook endpoint',
    errors: [...COMMON_ERRORS, 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_WINDOW', 'WEBHOOK_NOT_REGISTERED'],
    rateClass: 'general',
    signed: true,
    idempotency: 'none',
    extension: true,
  },
  {
    id: 'getReconciliation',
    method: 'GET',
    path: '/reconciliation/{date}',
    summary: 'Daily reconciliation report (planned; contract may change)',
    errors: [...COMMON_ERRORS, 'NOT_FOUND'],
    rateClass: 'general',
    signed: false,
    idempotency: 'none',
    extension: false,
    planned: true,
    record: 'date',
  },
] as const satisfies readonly Route[];

export type RouteId = (typeof ROUTES)[number]['id'];

export function route(id: RouteId): Route {
  const found = (ROUTES as readonly Route[]).find((r) => r.id === id);
  if (!found) throw new Error(`unknown route ${id}`);
  return found;
}

/**
 * Fill `{param}` placeholders, URL-encoding each value; a value of `.` or `..` (an id is
 * sent as given) as `%2E`, `%2E%2E`, so that it never names the segment's parent.
 */
export function expandPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return value === '.' || value === '..' ? value.replace(/\./g, '%2E') : encodeURIComponent(value);
  });
}

/**
 * A path segment percent-decoded; one that is not valid percent-encoding (`%zz`, a cut
 * UTF-8 sequence such as `%E0%A4%A`) is taken as written, so it names nothing rather than
 * failing the request.
 */
export function decodePathParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export type RouteMatch<T> = { route: T; params: Record<string, string> } | { methodNotAllowed: true } | undefined;

const PATTERNS = new Map<string, { re: RegExp; names: string[] }>();

/** A route path as a pattern and its parameter names, made once per path (a server matches every request). */
function patternOf(path: string): { re: RegExp; names: string[] } {
  let p = PATTERNS.get(path);
  if (!p) {
    const names: string[] = [];
    const re = new RegExp(
      '^' +
        path.replace(/\{(\w+)\}/g, (_, n: string) => {
          names.push(n);
          return '([^/]+)';
        }) +
        '/?$',
    );
    p = { re, names };
    PATTERNS.set(path, p);
  }
  return p;
}

/** Find which of `routes` a concrete method and path (relative to the base URL, no query) belong to. */
export function matchRoute<T extends Pick<Route, 'method' | 'path'>>(routes: readonly T[], method: string, path: string): RouteMatch<T> {
  let pathMatched = false;
  for (const r of routes) {
    const { re, names } = patternOf(r.path);
    const m = re.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method.toUpperCase()) continue;
    const params: Record<string, string> = {};
    names.forEach((n, i) => {
      params[n] = decodePathParam(m[i + 1] ?? '');
    });
    return { route: r, params };
  }
  return pathMatched ? { methodNotAllowed: true } : undefined;
}

/** The route of a request: by id when given, else by method and path. */
export function findRoute(method: string, path: string, id?: string): Route | undefined {
  if (id) return (ROUTES as readonly Route[]).find((r) => r.id === id);
  const m = matchRoute(ROUTES as readonly Route[], method, path);
  return m && 'route' in m ? m.route : undefined;
}
