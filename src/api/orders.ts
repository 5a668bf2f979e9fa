/**
 * Typed calls of the order endpoints: thin wrappers over ApiClient.request, one per
 * endpoint id of the contract, plus a page iterator and an order follower. No CLI imports.
 */
import { ApiError, InterruptedError, NetworkError } from '../core/errors/index.js';
import { formatDuration } from '../core/http/duration.js';
import { nextPageRequest, PageLoopError, type PageRequest } from '../core/http/paging.js';
import { expandPath, matchRoute, route, type RouteId as EndpointId } from '../contract/routes.js';
import type { CreateOrderRequest, Order, OrderCodes, OrderStatus } from '../contract/orders.js';
import { canonicalStatus, FINAL_ORDER_STATUSES } from '../contract/order-values.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import type { Clock } from '../core/time/clock.js';
import { readCodes, readOrder, sentCodes } from './order-read.js';
import { keepUnread } from '../core/http/unread.js';

/** Per-call options passed through to the client. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Called as each attempt is about to leave (RequestOptions.onSend). */
  onSend?: () => void;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxRetries?: number;
  /** Logged as the CLI's own probe, not the user's request (RequestOptions.probe). */
  probe?: boolean;
  /** The caller journals the idempotency key before sending (RequestOptions.keyJournalled). */
  keyJournalled?: boolean;
  /** The idempotency key was given to the command (RequestOptions.keyGiven). */
  keyGiven?: boolean;
  /** The command logs when it has printed the answer (RequestOptions.showsAnswer). */
  showsAnswer?: boolean;
}

/**
 * An answer about one order. When the server's body differs from the contract, `data` is
 * that body read into an Order (order-read.ts) and `received` is the body as it came.
 */
export interface OrderResponse extends ApiResponse<Order> {
  /** The body as it came (null when it was empty or not JSON). */
  received?: unknown;
  /** The order id was read from the answer's Location header: its body names none. */
  idFromLocation?: boolean;
  /** POST /orders answered 303 See Other: this is the GET of the order its Location names. */
  seeOther?: boolean;
}

/** Read a drifted order answer (see OrderResponse); a body that matches is left as is. */
function asOrder(res: ApiResponse<Order>, knownId?: string): OrderResponse {
  if (!res.drift) return res;
  return Object.assign(res, { received: res.data === undefined ? null : res.data, data: readOrder(res.data, knownId) });
}

/** A page of orders: the list envelope of the contract. */
export interface OrderPage {
  data: Order[];
  has_more: boolean;
  next_cursor: string | null;
  next_query?: Record<string, string>;
  next_path?: string;
}

/** Filters of GET /orders (an extension), by their wire names. */
export interface OrderListQuery {
  /** One of ours, or the server's own name for a status, sent as given. */
  status?: string;
  reference?: string;
  created_from?: string;
  created_to?: string;
  limit?: number;
  cursor?: string;
  /** The next page's query as the server gave it (a Link header, a page number): sent over the filters. */
  next?: Record<string, string>;
  /** The next page's path as a next link gave it (relative to the base URL), instead of /orders. */
  path?: string;
}

function pathOf(id: EndpointId, params?: Record<string, string>): string {
  return expandPath(route(id).path, params);
}

/**
 * POST /orders. The idempotency key is the caller's: it is made once per logical order and
 * reused on every retry (by the client) and every re-run (by the caller).
 */
export async function createOrder(
  client: ApiClient,
  body: CreateOrderRequest,
  options: CallOptions & { idempotencyKey: string },
): Promise<OrderResponse> {
  const { idempotencyKey, ...call } = options;
  let sent;
  try {
    sent = await client.request<Order>({
      method: 'POST',
      path: pathOf('createOrder'),
      endpoint: 'createOrder',
      body,
      idempotencyKey,
      ...call,
    });
  } catch (error) {
    // 303 See Other: the order exists and is at the Location (RFC 9110 15.4.4); it is read
    // with a GET there, never posted again. Another origin's Location is not followed.
    const seeOther = error instanceof ApiError && error.status === 303 ? error.location : undefined;
    const id = locatedOrderId(seeOther?.path);
    if (seeOther === undefined) throw error;
    if (id === undefined) {
      const named = locatedOrderId(seeOther.header.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/^.*?(?=\/orders\/)/, ''));
      throw new ApiError({
        status: 303,
        name: 'SeeOtherNotFollowed',
        code: 'SEE_OTHER_NOT_FOLLOWED',
        message: `POST /orders answered 303 See Other to ${seeOther.header}, which is not an order under the base URL on this server: not followed. The answer says the order was placed${named ? `: order ${named}, as the Location names it` : ''}`,
        traceId: (error as ApiError).traceId,
        method: 'POST',
        path: pathOf('createOrder'),
        location: seeOther,
      });
    }
    const read = await getOrder(client, id, { signal: call.signal, timeoutMs: call.timeoutMs });
    return Object.assign(read, { seeOther: true });
  }
  const res = asOrder(sent);
  // A body that names no order (an empty 201/202): the order its Location header names, if any.
  const located = res.data.order_id === '' ? locatedOrderId(res.locationPath) : undefined;
  if (located === undefined) return res;
  return Object.assign(res, { data: { ...res.data, order_id: located }, idFromLocation: true });
}

/**
 * The order id of a path relative to the base URL that names one order (`/orders/ord_1`):
 * where a server that answers an order with an empty body may name it, in its Location
 * header (ApiResponse.locationPath, ContractMismatchError.location). Undefined for any other path.
 */
export function locatedOrderId(path: string | undefined): string | undefined {
  const found = path === undefined ? undefined : matchRoute([route('getOrder')], 'GET', path);
  const id = found && 'route' in found ? found.params.order_id : undefined;
  return id === undefined || id === '' ? undefined : id;
}

/** GET /orders/{order_id}: status, vouchers (codes shown only as `code_last4`) and timeline. */
export async function getOrder(client: ApiClient, orderId: string, options: CallOptions = {}): Promise<OrderResponse> {
  return asOrder(
    await client.request<Order>({ method: 'GET', path: pathOf('getOrder', { order_id: orderId }), endpoint: 'getOrder', ...options }),
    orderId,
  );
}

/** GET /orders (extension): one page. */
export async function listOrders(
  client: ApiClient,
  query: OrderListQuery = {},
  options: CallOptions = {},
): Promise<ApiResponse<OrderPage>> {
  const res = await client.request<OrderPage>({
    method: 'GET',
    path: query.path ?? pathOf('listOrders'),
    endpoint: 'listOrders',
    query: (({ next, path: _path, ...filters }) => ({ ...filters, ...next }))(query),
    ...options,
  });
  if (res.drift)
    res.data = {
      ...res.data,
      data: keepUnread(
        res.data.data,
        res.data.data.map((o) => readOrder(o)),
      ),
    };
  return res;
}

/** Every order matching the filters, page after page (follows `next_cursor`), one at a time. */
export async function* iterateOrders(
  client: ApiClient,
  query: OrderListQuery = {},
  options: CallOptions & { onPage?: (page: ApiResponse<OrderPage>) => void; onLoop?: (error: PageLoopError) => void } = {},
): AsyncGenerator<Order> {
  const { onPage, onLoop, ...call } = options;
  let asked: PageRequest | undefined = { cursor: query.cursor };
  const seen = new Set<string>();
  for (let pages = 1; asked; pages++) {
    const page = await listOrders(client, { ...query, ...asked }, call);
    onPage?.(page);
    yield* page.data.data;
    try {
      asked = nextPageRequest(page.data, asked, { seen, pages, traceId: page.traceId });
    } catch (error) {
      // The rows came: with onLoop the list ends here (printed whole), and the caller says why.
      if (!onLoop || !(error instanceof PageLoopError)) throw error;
      onLoop(error);
      return;
    }
  }
}

/** POST /orders/{order_id}/cancel (extension, signed): only a PENDING order can be cancelled. */
export async function cancelOrder(
  client: ApiClient,
  orderId: string,
  options: CallOptions & { idempotencyKey?: string } = {},
): Promise<OrderResponse> {
  return asOrder(
    await client.request<Order>({
      method: 'POST',
      path: pathOf('cancelOrder', { order_id: orderId }),
      endpoint: 'cancelOrder',
      ...options,
    }),
    orderId,
  );
}

/**
 * An answer of the secure code endpoint. When the server's body differs from the contract,
 * `data` is that body read into OrderCodes (order-read.ts) and `received` its code entries
 * as they came.
 */
export interface OrderCodesResponse extends ApiResponse<OrderCodes> {
  /** The code entries as sent, one for each row of `data` (undefined when the answer holds no list). */
  received?: Record<string, unknown>[];
}

/** GET /orders/{order_id}/vouchers (extension): the secure code endpoint. Every call is recorded by the server. */
export async function getOrderCodes(client: ApiClient, orderId: string, options: CallOptions = {}): Promise<OrderCodesResponse> {
  const res = await client.request<OrderCodes>({
    method: 'GET',
    path: pathOf('getOrderCodes', { order_id: orderId }),
    endpoint: 'getOrderCodes',
    ...options,
  });
  if (!res.drift) return res;
  return Object.assign(res, { received: sentCodes(res.data), data: readCodes(res.data, orderId) });
}

/** Whether an order has reached a status it never leaves. */
export function isFinalStatus(status: OrderStatus | string): boolean {
  const known = canonicalStatus(status);
  return known !== undefined && FINAL_ORDER_STATUSES.includes(known);
}

/** Whether `order` has reached (or gone through) `until`; without `until`, whether it is final. */
export function hasReached(order: Pick<Order, 'status' | 'timeline'>, until?: OrderStatus): boolean {
  if (!until) return isFinalStatus(order.status);
  return canonicalStatus(order.status) === until || (order.timeline ?? []).some((t) => canonicalStatus(t.status) === until);
}

export interface FollowOptions {
  clock: Clock;
  /** Give up after this long (ms). */
  timeoutMs: number;
  /** Stop at this status (or once the order went through it); default: any final status. */
  until?: OrderStatus;
  signal?: AbortSignal;
  /** First poll interval; grows ×1.5 up to `maxIntervalMs`. */
  initialIntervalMs?: number;
  maxIntervalMs?: number;
  /** Longest single GET (capped by what is left of the timeout). */
  requestTimeoutMs?: number;
  /** Called once per status seen (first one included). */
  onStatus?: (order: Order, response: OrderResponse) => void;
  /** An order already fetched (e.g. the create response): saves the first GET. */
  initial?: { order: Order; traceId?: string; received?: unknown };
  /**
   * The server has just accepted this order (orders create --wait): a 404 is an order it
   * does not show yet (a server may be eventually consistent), asked for again with the same
   * backoff until the timeout, and thrown only then. Otherwise a 404 is thrown at once.
   */
  acceptedJustNow?: boolean;
  /** Called on a 404 asked for again (acceptedJustNow), once per run of them. */
  onNotYetShown?: (error: ApiError) => void;
}

export interface FollowResult {
  order: Order;
  /** `until` reached (or, without one, a final status). */
  reached: boolean;
  /** The order became final without reaching `until`. */
  endedElsewhere: boolean;
  timedOut: boolean;
  /** Trace id of the last answer. */
  traceId: string | undefined;
  polls: number;
  /** The last answer's body as the server sent it, when it differs from the contract. */
  received?: unknown;
}

/**
 * Follow an order with GET /orders/{id}, backing off from 0.5 s to 5 s, until it reaches
 * `until` (or a final status), becomes final elsewhere, or the timeout passes. Aborting the
 * signal rejects with the signal's reason.
 */
export async function followOrder(client: ApiClient, orderId: string, options: FollowOptions): Promise<FollowResult> {
  const { clock, signal } = options;
  const deadline = clock.now() + options.timeoutMs;
  const maxInterval = options.maxIntervalMs ?? 5_000;
  let interval = options.initialIntervalMs ?? 500;
  let lastStatus: OrderStatus | undefined;
  let polls = 0;
  let order: Order | undefined = options.initial?.order;
  let traceId = options.initial?.traceId;
  let received = options.initial?.received;
  const seen = (o: Order, response?: OrderResponse) => {
    if (o.status !== lastStatus) {
      lastStatus = o.status;
      if (response) options.onStatus?.(o, response);
      else
        options.onStatus?.(o, {
          status: 200,
          headers: {},
          data: o,
          text: '',
          traceId,
          replayed: false,
          attempts: 1,
          idempotencyKey: undefined,
          durationMs: 0,
        });
    }
  };
  if (order) seen(order);
  // The 404 of the last GET of an order just accepted (acceptedJustNow): not shown yet.
  let notShown: ApiError | undefined;
  /**
   * The wait over, the order as last seen. CANCELLED is followed in the hope of its refund
   * (our guess: CANCELLED, then REFUNDED), but a server may leave it there: at the end of
   * the wait it is the end.
   */
  const waitEnded = (last: Order): FollowResult => {
    const cancelled = canonicalStatus(last.status) === 'CANCELLED';
    return { order: last, reached: false, endedElsewhere: cancelled, timedOut: !cancelled, traceId, polls, received };
  };
  for (;;) {
    signal?.throwIfAborted();
    if (order || notShown) {
      if (order && !notShown) {
        const reached = hasReached(order, options.until);
        const final = isFinalStatus(order.status);
        if (reached || final) return { order, reached, endedElsewhere: !reached, timedOut: false, traceId, polls, received };
      }
      const left = deadline - clock.now();
      if (left <= 0 && notShown) throw notShown;
      if (order && left <= 0) return waitEnded(order);
      await clock.sleep(Math.min(interval, left), signal);
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
    const left = Math.max(1_000, deadline - clock.now());
    // The end of the wait bounds the poll with its retries and their backoff, not only each
    // attempt: a server that does not answer must not hold a wait of 5s for four attempts.
    const end = new AbortController();
    const timer = setTimeout(() => end.abort(new InterruptedError('the wait ended')), left);
    timer.unref?.();
    let response: OrderResponse;
    try {
      response = await getOrder(client, orderId, {
        signal: signal ? AbortSignal.any([signal, end.signal]) : end.signal,
        timeoutMs: Math.min(options.requestTimeoutMs ?? 30_000, left),
      });
    } catch (error) {
      if (end.signal.aborted && !signal?.aborted) {
        // Time is up while the server was being asked: the wait ends as it ends at its time,
        // with the order as last seen; never seen, with the poll that got no answer.
        if (notShown) throw notShown;
        if (order) return waitEnded(order);
        throw new NetworkError(
          `no answer to GET /orders/${orderId} before the wait ended (${formatDuration(options.timeoutMs)})`,
          error instanceof InterruptedError ? error.traceId : undefined,
          'TIMEOUT',
          'retry the command; give the wait more time (--wait-timeout) if the server is slow',
        );
      }
      if (!options.acceptedJustNow || !(error instanceof ApiError) || error.status !== 404) throw error;
      polls += 1;
      if (!notShown) options.onNotYetShown?.(error);
      notShown = error;
      continue;
    } finally {
      clearTimeout(timer);
    }
    notShown = undefined;
    polls += 1;
    order = response.data;
    received = response.received;
    traceId = response.traceId ?? traceId;
    seen(order, response);
  }
}
