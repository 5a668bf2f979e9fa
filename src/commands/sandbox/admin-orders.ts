/**
 * `sandbox admin orders list|get` and the order operations: approve, reject, complete,
 * partial, fail. Each prints the admin order after the change.
 */
import { ApiError, UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { pageHint, outputHintFlags } from '../../core/output/next-page.js';
import type { OutputFlags } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { adminCall, adminTarget, type AdminList, type AdminTarget } from '../../api/sandbox-admin.js';
import { ORDER_COLUMNS, orderFields, showList, showRecord, type AdminOrder } from './admin-output.js';
import { wholeNumberFlag } from './admin-flags.js';
import type { AdminFailFlags, AdminOrdersListFlags, AdminPartialFlags, AdminRejectFlags } from './admin-register.js';

const GATES = ['held', 'approved', 'rejected', 'withdrawn'];
const STATUSES = ['PENDING', 'PROCESSING', 'DELIVERED', 'PARTIALLY_DELIVERED', 'CANCELLED', 'REFUNDED'];

export type OrdersListFlags = AdminOrdersListFlags;

export async function list(f: Factory, flags: OrdersListFlags): Promise<void> {
  const status = flags.status?.trim().toUpperCase();
  if (status !== undefined && !STATUSES.includes(status))
    throw new UsageError(`--status ${JSON.stringify(flags.status)} is not an order status`, `use one of ${STATUSES.join(', ')}`);
  const gate = flags.gate?.trim().toLowerCase();
  if (gate !== undefined && !GATES.includes(gate))
    throw new UsageError(`--gate ${JSON.stringify(flags.gate)} must be one of ${GATES.join(', ')}`);
  const limit = flags.limit === undefined ? undefined : wholeNumberFlag(flags.limit, '--limit', 1, 200);
  const target = await adminTarget(f);
  const res = await adminCall<AdminList<AdminOrder>>(target, 'GET', '/orders', {
    query: { status, gate, partner_id: flags.partner, limit, cursor: flags.cursor },
    signal: f.io.signal,
  });
  await showList(f, flags, res.data.data, ORDER_COLUMNS, 'No orders.');
  if (res.data.has_more && res.data.next_cursor) {
    // The full command: a cursor only continues the query it came from. This verb has no --all.
    err(
      f.io,
      pageHint(
        'More orders',
        {
          command: ['sandbox', 'admin', 'orders', 'list'],
          flags: [['--status', status], ['--gate', gate], ['--partner', flags.partner], ['--limit', limit], ...outputHintFlags(flags)],
          globals: f.globals(),
          cursor: res.data.next_cursor,
        },
        f.globals().json === true,
      ),
    );
  }
}

export async function get(f: Factory, orderId: string, flags: OutputFlags): Promise<void> {
  const target = await adminTarget(f);
  const res = await adminCall<AdminOrder>(target, 'GET', `/orders/${encodeURIComponent(orderId)}`, { signal: f.io.signal });
  await showRecord(f, flags, res.data, orderFields(res.data));
}

export type OrderAction = 'approve' | 'reject' | 'complete' | 'partial' | 'fail';

export type OrderActionFlags = Partial<AdminRejectFlags & AdminPartialFlags & AdminFailFlags>;

const DONE: Record<OrderAction, string> = {
  approve: 'Approved: fulfilment now runs asynchronously',
  reject: 'Rejected: cancelled and refunded in full',
  complete: 'Completed: every voucher issued',
  partial: 'Partly delivered: the failed part is refunded',
  fail: 'Failed: cancelled and refunded in full',
};

/** `partial --delivered N` (or `--failed N`) → the admin body's `failed_count`. */
async function partialBody(f: Factory, orderId: string, flags: OrderActionFlags): Promise<Record<string, number>> {
  if (flags.delivered !== undefined && flags.failed !== undefined) throw new UsageError('give --delivered or --failed, not both');
  if (flags.failed !== undefined) return { failed_count: wholeNumberFlag(flags.failed, '--failed', 1, 10_000) };
  if (flags.delivered === undefined) return {};
  const delivered = wholeNumberFlag(flags.delivered, '--delivered', 1, 10_000);
  const target = await adminTarget(f);
  const order = (await adminCall<AdminOrder>(target, 'GET', `/orders/${encodeURIComponent(orderId)}`, { signal: f.io.signal })).data;
  const total = order.items.reduce((n, i) => n + i.quantity, 0);
  if (delivered >= total)
    throw new UsageError(
      `--delivered ${delivered} must be less than the order's ${total} voucher${total === 1 ? '' : 's'}`,
      `to deliver them all: vouchers sandbox admin complete ${orderId}`,
    );
  return { failed_count: total - delivered };
}

/** Which orders each operation takes, for the hint when the sandbox refuses one (409 ORDER_NOT_HELD, ORDER_NOT_OPEN). */
const ALLOWED: Record<OrderAction, string> = {
  approve: 'only PENDING orders held at the admin gate (product sbx-gated) can be approved or rejected',
  reject: 'only PENDING orders held at the admin gate (product sbx-gated) can be approved or rejected',
  complete: 'only PENDING or PROCESSING orders can be completed',
  partial: 'only PENDING or PROCESSING orders can be partly delivered',
  fail: 'only PENDING or PROCESSING orders can be failed',
};

/**
 * A hint that fits the admin operation, with the order's current status and gate when
 * they can be read. An older sandbox answered ORDER_NOT_CANCELLABLE, whose hint is about
 * the partner's cancel.
 */
const NOT_APPLICABLE = new Set(['ORDER_NOT_HELD', 'ORDER_NOT_OPEN', 'ORDER_NOT_CANCELLABLE']);

async function notApplicable(target: AdminTarget, f: Factory, action: OrderAction, orderId: string, error: ApiError): Promise<ApiError> {
  let now = '';
  try {
    const o = (await adminCall<AdminOrder>(target, 'GET', `/orders/${encodeURIComponent(orderId)}`, { signal: f.io.signal })).data;
    now = `; ${orderId} is ${o.status}${o.gate ? ` (gate: ${o.gate})` : ''}`;
  } catch (e) {
    if (f.io.signal.aborted) throw e; // Ctrl-C: interrupted (130)
    // The status stays unknown; the hint still says what the operation takes.
  }
  return error.withHint(`${ALLOWED[action]}${now}: vouchers sandbox admin orders get ${orderId}`);
}

export async function act(f: Factory, action: OrderAction, orderId: string, flags: OrderActionFlags): Promise<void> {
  if (flags.reason !== undefined && action !== 'reject' && action !== 'fail')
    throw new UsageError(`--reason only applies to reject and fail`);
  const body = action === 'partial' ? await partialBody(f, orderId, flags) : flags.reason !== undefined ? { reason: flags.reason } : {};
  const target = await adminTarget(f);
  let res;
  try {
    res = await adminCall<AdminOrder>(target, 'POST', `/orders/${encodeURIComponent(orderId)}/${action}`, { body, signal: f.io.signal });
  } catch (error) {
    if (error instanceof ApiError && NOT_APPLICABLE.has(error.apiCode)) throw await notApplicable(target, f, action, orderId, error);
    throw error;
  }
  err(f.io, `${DONE[action]} (${orderId}, now ${res.data.status}).\n`);
  await showRecord(f, flags, res.data, orderFields(res.data));
}
