/**
 * The order values of the contract as plain constants, without zod: commands that only
 * need a status list or a limit import them from here and so do not load zod
 * (orders.ts builds its schemas from them and re-exports them).
 */
export const ORDER_STATUSES = ['PENDING', 'PROCESSING', 'DELIVERED', 'PARTIALLY_DELIVERED', 'CANCELLED', 'REFUNDED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Statuses after which an order never changes again. */
export const FINAL_ORDER_STATUSES: readonly OrderStatus[] = ['DELIVERED', 'PARTIALLY_DELIVERED', 'REFUNDED'];

export const FULFILLED_FROM = ['cache', 'vendor', 'mixed'] as const;

export const ORDER_LIMITS = { maxItems: 10, maxQuantity: 100, maxVouchers: 100, maxReference: 64 } as const;

export const VOUCHER_STATUSES = ['ISSUED', 'FAILED'] as const;
