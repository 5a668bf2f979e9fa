/**
 * Extensions of the API (GET /orders, GET /orders/{id}/vouchers, POST /orders/{id}/cancel)
 * may be missing on a real server: a 405, or a 404 for an order that does exist, becomes
 * a clear "this server does not offer …" (exit 4) instead of a confusing error.
 */
import { getOrder } from '../../api/orders.js';
import { isRouteMissing, notOffered } from '../../api/not-offered.js';
import type { ApiClient } from '../../core/http/types.js';
import { docPath } from '../../core/io/package-root.js';

/** Why a server may lack the endpoint (named when the error is made, where this copy keeps its docs). */
const hint = () =>
  `it is an extension of the Partner API v1 (${docPath('contract.md')}), which the local sandbox offers in its default dialect`;

/**
 * Run an extension call. On 405, or on 404 when no order id is involved or the order
 * itself exists, say the server lacks `what`; a 404 for an order that does not exist is
 * the call's own error.
 */
export async function callExtension<T>(client: ApiClient, what: string, orderId: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isRouteMissing(error)) throw error;
    const message = `this server does not offer ${what}`;
    if (error.status === 405 || orderId === undefined) throw notOffered(error, message, hint());
    // The order's own answer tells a missing endpoint from a missing order.
    const order = await getOrder(client, orderId, { probe: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (order === undefined) throw notOffered(error, message, hint());
    // No such order either: the user's own request failed, and its answer (method, path,
    // trace ID) is the one to report; the probe is left out of `vouchers log --failed`.
    throw error;
  }
}
