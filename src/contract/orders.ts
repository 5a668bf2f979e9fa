import * as z from 'zod';
import { Amount, Currency, DateOnly, OrderId, Timestamp, VoucherId } from './common.js';
import { FULFILLED_FROM, ORDER_LIMITS, ORDER_STATUSES, VOUCHER_STATUSES } from './order-values.js';

export { FINAL_ORDER_STATUSES, FULFILLED_FROM, ORDER_LIMITS, ORDER_STATUSES, VOUCHER_STATUSES } from './order-values.js';

export const OrderStatus = z.enum(ORDER_STATUSES).meta({ id: 'OrderStatus' });
export type OrderStatus = z.infer<typeof OrderStatus>;

export const FulfilledFrom = z.enum(FULFILLED_FROM);

export const OrderItemInput = z.strictObject({
  product_id: z.string().min(1, 'is required'),
  denomination: z.number().positive('must be a positive amount'),
  quantity: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(ORDER_LIMITS.maxQuantity, `must be at most ${ORDER_LIMITS.maxQuantity}`),
});
export type OrderItemInput = z.infer<typeof OrderItemInput>;

export const CreateOrderRequest = z
  .strictObject({
    items: z
      .array(OrderItemInput)
      .min(1, 'must hold at least one item')
      .max(ORDER_LIMITS.maxItems, `must hold at most ${ORDER_LIMITS.maxItems} items`),
    currency: Currency.optional(),
    reference: z
      .string()
      .min(1, 'must not be empty')
      .max(ORDER_LIMITS.maxReference, `must be at most ${ORDER_LIMITS.maxReference} characters`)
      .optional(),
  })
  .check((ctx) => {
    const total = ctx.value.items.reduce((n, i) => n + i.quantity, 0);
    if (total > ORDER_LIMITS.maxVouchers) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value.items,
        path: ['items'],
        message: `orders at most ${ORDER_LIMITS.maxVouchers} vouchers in all (this one orders ${total})`,
      });
    }
  })
  .meta({ id: 'CreateOrderRequest' });
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

export const OrderItem = z.looseObject({
  product_id: z.string(),
  denomination: z.number(),
  quantity: z.number().int(),
});

/**
 * Voucher entry in order responses. `code`/`pin` appear only in the 201 cache-hit
 * response; GET /orders/{id} shows `code_last4` instead. `expiry` is null for a product
 * whose expiry policy is `none`.
 */
export const OrderVoucher = z
  .looseObject({
    voucher_id: VoucherId,
    product_id: z.string(),
    denomination: z.number(),
    expiry: DateOnly.nullable(),
    status: z.enum(VOUCHER_STATUSES),
    code: z.string().optional(),
    pin: z.string().nullable().optional(),
    code_last4: z.string().optional(),
  })
  .meta({ id: 'OrderVoucher' });
export type OrderVoucher = z.infer<typeof OrderVoucher>;

export const TimelineEntry = z
  .looseObject({
    status: OrderStatus,
    at: Timestamp,
    note: z.string().nullable(),
  })
  .meta({ id: 'TimelineEntry' });
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const Order = z
  .looseObject({
    order_id: OrderId,
    status: OrderStatus,
    items: z.array(OrderItem),
    total_amount: Amount,
    currency: Currency,
    reference: z.string().nullable(),
    fulfilled_from: FulfilledFrom.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    vouchers: z.array(OrderVoucher),
    timeline: z.array(TimelineEntry),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof Order>;

/** GET /orders/{order_id}/vouchers (extension): the secure code endpoint. */
export const VoucherCode = z
  .looseObject({
    voucher_id: VoucherId,
    product_id: z.string(),
    denomination: z.number(),
    expiry: DateOnly.nullable(),
    code: z.string(),
    pin: z.string().nullable(),
  })
  .meta({ id: 'VoucherCode' });
export type VoucherCode = z.infer<typeof VoucherCode>;

export const OrderCodes = z
  .looseObject({
    order_id: OrderId,
    data: z.array(VoucherCode),
  })
  .meta({ id: 'OrderCodes' });
export type OrderCodes = z.infer<typeof OrderCodes>;

export const OrderListFilters = z.strictObject({
  status: OrderStatus.optional(),
  reference: z.string().optional(),
  created_from: DateOnly.optional(),
  created_to: DateOnly.optional(),
});
