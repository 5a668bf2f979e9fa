/**
 * The order values of the contract as plain constants, without zod: commands that only
 * need a status list or a limit import them from here and so do not load zod
 * (orders.ts builds its schemas from them and re-exports them).
 */
export const ORDER_STATUSES = ['PENDING', 'PROCESSING', 'DELIVERED', 'PARTIALLY_DELIVERED', 'CANCELLED', 'REFUNDED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Statuses after which an order never changes again. */
export const FINAL_ORDER_STATUSES: readonly OrderStatus[] = ['DELIVERED', 'PARTIALLY_DELIVERED', 'REFUNDED'];

/**
 * The contract's status an order status of any spelling stands for: the document shows only
 * PENDING and DELIVERED and leaves the others' strings open, so a server may send
 * `delivered`, `Completed` or `QUEUED`. Case and separators do not matter, and the usual
 * synonyms are understood; undefined for a status this version cannot place. Only the
 * order verbs' decisions use it (is it final, was it delivered): the status is shown as sent.
 */
export function canonicalStatus(status: unknown): OrderStatus | undefined {
  if (typeof status !== 'string') return undefined;
  const s = spelling(status);
  if ((ORDER_STATUSES as readonly string[]).includes(s)) return s as OrderStatus;
  return STATUS_SYNONYMS[s];
}

/** A status as canonicalStatus compares it: trimmed, in upper case, spaces and hyphens as `_`. */
function spelling(status: string): string {
  return status
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
}

/**
 * The one of `statuses` a status stands for in any case and with spaces or hyphens for `_`
 * (`processing` for PROCESSING, `issued` for ISSUED); undefined for another word.
 */
export function spelledAs<S extends string>(status: unknown, statuses: readonly S[]): S | undefined {
  if (typeof status !== 'string') return undefined;
  const s = spelling(status);
  return statuses.find((x) => x === s);
}

/**
 * Whether the status as sent says the money came back: REFUNDED (or REFUND) in any spelling.
 * The failures canonicalStatus takes for REFUNDED (FAILED, REJECTED, DECLINED: final, no
 * voucher) do not say so, and a refund is never claimed on their word.
 */
export function saysRefunded(status: unknown): boolean {
  if (typeof status !== 'string') return false;
  const s = spelling(status);
  return s === 'REFUNDED' || s === 'REFUND';
}

/**
 * Whether an order status says it ended without any voucher: CANCELLED or REFUNDED, or a
 * failure word read as final (FAILED, REJECTED, DECLINED), in any spelling.
 */
export function endedUnfulfilled(status: unknown): boolean {
  const known = canonicalStatus(status);
  return known === 'CANCELLED' || known === 'REFUNDED';
}

/** Whether an order status says it ended with only some of its vouchers issued: PARTIALLY_DELIVERED, in any spelling. */
export function endedPartly(status: unknown): boolean {
  return canonicalStatus(status) === 'PARTIALLY_DELIVERED';
}

/** Whether an order is still being worked on (PENDING or PROCESSING, in any spelling): its codes may yet come. */
export function isOpenStatus(status: unknown): boolean {
  const known = canonicalStatus(status);
  return known === 'PENDING' || known === 'PROCESSING';
}

const STATUS_SYNONYMS: Record<string, OrderStatus> = {
  QUEUED: 'PENDING',
  CREATED: 'PENDING',
  ACCEPTED: 'PENDING',
  SUBMITTED: 'PENDING',
  WAITING: 'PENDING',
  ON_HOLD: 'PENDING',
  HELD: 'PENDING',
  IN_PROGRESS: 'PROCESSING',
  FULFILLING: 'PROCESSING',
  COMPLETED: 'DELIVERED',
  COMPLETE: 'DELIVERED',
  FULFILLED: 'DELIVERED',
  FULFILLED_ALL: 'DELIVERED',
  SUCCEEDED: 'DELIVERED',
  SUCCESS: 'DELIVERED',
  DONE: 'DELIVERED',
  PARTIAL: 'PARTIALLY_DELIVERED',
  PARTIALLY_FULFILLED: 'PARTIALLY_DELIVERED',
  PARTIALLY_COMPLETED: 'PARTIALLY_DELIVERED',
  CANCELED: 'CANCELLED',
  REFUND: 'REFUNDED',
  FAILED: 'REFUNDED',
  REJECTED: 'REFUNDED',
  DECLINED: 'REFUNDED',
};

export const FULFILLED_FROM = ['cache', 'vendor', 'mixed'] as const;

export const ORDER_LIMITS = { maxItems: 10, maxQuantity: 100, maxVouchers: 100, maxReference: 64 } as const;

export const VOUCHER_STATUSES = ['ISSUED', 'FAILED'] as const;

/**
 * The statuses the CLI reads in any case and with other separators: an order's
 * (canonicalStatus) and a voucher's (isIssued). One of them in another spelling
 * (`processing`, `issued`) is that status, not a value this version does not know.
 */
export const STATUSES_OF_ANY_CASE: readonly (readonly string[])[] = [ORDER_STATUSES, VOUCHER_STATUSES];

/**
 * Whether a value an enum refused (`values`, the enum's) is a status the CLI reads in any
 * case (STATUSES_OF_ANY_CASE) sent in another spelling (`processing`): ours, not a value
 * this version does not know. For the contract checks of answers and of webhook events.
 */
export function isStatusSpelledOtherwise(values: readonly unknown[] | undefined, value: unknown): boolean {
  const statuses = STATUSES_OF_ANY_CASE.find((e) => sameValues(e, values));
  return statuses !== undefined && spelledAs(value, statuses) !== undefined;
}

/** Whether an enum's values (`values`) are exactly `statuses`. */
function sameValues(statuses: readonly string[], values: readonly unknown[] | undefined): boolean {
  return statuses.length === values?.length && statuses.every((s) => values.includes(s));
}

/**
 * How the order verbs read a value the order status enum (`values`) refused, when it is
 * one of the usual other names of our statuses (canonicalStatus): the status it stands for
 * (`PENDING` for QUEUED, `DELIVERED` for COMPLETED), or, for a failure word taken as final
 * without a refund being claimed (FAILED), that. Undefined for another enum or a word the
 * verbs cannot place: a value this version does not know. For the contract checks'
 * warnings, so that they say what the verbs do with it.
 */
export function statusReadAs(values: readonly unknown[] | undefined, value: unknown): string | undefined {
  if (!sameValues(ORDER_STATUSES, values)) return undefined;
  const status = canonicalStatus(value);
  if (status === 'REFUNDED' && !saysRefunded(value)) return 'final, not fulfilled (no refund assumed)';
  return status;
}
