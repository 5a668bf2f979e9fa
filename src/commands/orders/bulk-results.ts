/**
 * A bulk row's result records (the fields no answer filled, a failure, an order whose answer
 * differs from the contract) and the look-up by reference that finds an order a lost answer
 * may have made before the row is given a new key.
 */
import { listOrders, locatedOrderId } from '../../api/orders.js';
import { isIssued, readOrder } from '../../api/order-read.js';
import { amountValue } from '../../contract/money-format.js';
import type { Order } from '../../contract/orders.js';
import { endedPartly, endedUnfulfilled, isOpenStatus } from '../../contract/order-values.js';
import { ApiError, CliError, NetworkError } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import type { ContractMismatchError } from '../../core/http/validate.js';
import type { BulkRow, ResultRecord } from '../../core/journal/bulk.js';

export type Lookup = { offered: false; why: string } | { offered: true; order: Order | undefined; trace: string | null };

/** GET /orders?reference=: the orders with that reference, or why the server cannot say. */
export async function findByReference(client: ApiClient, reference: string, signal: AbortSignal): Promise<Lookup> {
  let res;
  try {
    res = await listOrders(client, { reference, limit: 10 }, { signal });
  } catch (e) {
    if (e instanceof ApiError && [400, 404, 405, 501].includes(e.status))
      return { offered: false, why: `GET /orders?reference= answered ${e.status} ${e.apiCode}` };
    throw e;
  }
  // A server that ignores the filter cannot prove an order absent.
  if (res.data.data.some((o) => o.reference !== reference))
    return { offered: false, why: 'the server does not filter orders by reference' };
  return { offered: true, order: res.data.data[0], trace: res.traceId ?? null };
}

/** The fields of a row's result that no answer filled (attempt set when past the first). */
export function noAnswer(row: number, attempt: number) {
  return {
    row,
    ok: false,
    order_id: null,
    status: null,
    http_status: null,
    trace_id: null,
    total_amount: null,
    currency: null,
    replayed: false,
    ...(attempt > 1 ? { attempt } : {}),
  } as const;
}

export function failureOf(row: number, error: unknown, at: string): Omit<ResultRecord, 'type'> {
  const base = { row, ok: false, order_id: null, status: null, total_amount: null, currency: null, replayed: false, at };
  if (error instanceof ApiError) {
    return {
      ...base,
      http_status: error.status,
      trace_id: error.traceId ?? null,
      error: error.message,
      error_code: error.apiCode,
      kind: error.kind,
    };
  }
  if (error instanceof NetworkError) {
    return { ...base, http_status: null, trace_id: error.traceId ?? null, error: error.message, error_code: error.code, kind: 'network' };
  }
  if (error instanceof CliError) {
    return { ...base, http_status: null, trace_id: null, error: error.message, error_code: error.code, kind: error.kind };
  }
  return {
    ...base,
    http_status: null,
    trace_id: null,
    error: error instanceof Error ? error.message : String(error),
    error_code: 'UNEXPECTED',
    kind: 'unexpected',
  };
}

/**
 * A row ordered and paid for whose answer differs from the contract (--strict-contract): the
 * order exists, so the row is ordered (never sent again), named by the answer's body or its
 * Location header, and carries the difference as its error (BatchState.mismatched).
 */
export function mismatchedOrder(row: BulkRow, error: ContractMismatchError, at: string): Omit<ResultRecord, 'type'> {
  const o = readOrder(error.body);
  const total: unknown = o.total_amount;
  return {
    row: row.row,
    ok: true,
    order_id: o.order_id || locatedOrderId(error.location?.path) || null,
    status: o.status || null,
    http_status: null,
    trace_id: error.traceId ?? null,
    total_amount: amountValue(total) ?? null,
    currency: o.currency || null,
    error: error.message,
    error_code: error.code,
    kind: 'unexpected',
    replayed: false,
    ...partialDelivery(o, row),
    at,
  };
}

/**
 * An order's result with the row's reference kept beside it when the summary names the row:
 * answered without any voucher (CANCELLED, FAILED…) or with only some (PARTIALLY_DELIVERED),
 * not final yet (PENDING, PROCESSING), or without an order id.
 */
export function withReference(result: Omit<ResultRecord, 'type'>, row: BulkRow): Omit<ResultRecord, 'type'> {
  if (!result.ok || (result.order_id && !endedUnfulfilled(result.status) && !endedPartly(result.status) && !isOpenStatus(result.status)))
    return result;
  return { ...result, reference: row.reference ?? null };
}

/** The names under which an answer may give the refund of an order (the decisions' event field, the sandbox's operator view, the document dialect's event field). */
const REFUND_FIELDS = ['refund_amount', 'refunded_amount', 'amount_refunded'];

/**
 * What an answer says of an order that ended PARTIALLY_DELIVERED, journalled with the row:
 * the vouchers it lists as issued (when it lists any), of the row's quantity, and the refund
 * it names, if it names one. Of an order not final yet (PENDING, PROCESSING), the row's
 * quantity, for when it is followed to PARTIALLY_DELIVERED. Nothing for another status.
 */
export function partialDelivery(
  order: Order,
  row: Pick<BulkRow, 'quantity'>,
): Pick<ResultRecord, 'vouchers_issued' | 'vouchers_ordered' | 'refund_amount'> {
  if (isOpenStatus(order.status)) return { vouchers_ordered: row.quantity };
  if (!endedPartly(order.status)) return {};
  const sent = order as unknown as Record<string, unknown>;
  const refund = REFUND_FIELDS.map((k) => amountValue(sent[k])).find((v) => v !== undefined);
  const vouchers = Array.isArray(order.vouchers) ? order.vouchers : [];
  const issued = vouchers.filter(isIssued).length;
  return {
    // A list that shows as many issued as were ordered (vouchers listed without a status of
    // their own) does not say which failed: no count is read from it.
    ...(vouchers.length > 0 && issued < row.quantity ? { vouchers_issued: issued } : {}),
    vouchers_ordered: row.quantity,
    ...(refund !== undefined ? { refund_amount: Math.abs(refund) } : {}),
  };
}
