import * as z from 'zod';
import { Amount, Currency, DateOnly, EventId, OrderId, Timestamp, TransactionId, VoucherId } from './common.js';
import { FulfilledFrom, OrderStatus } from './orders.js';

export const EVENT_TYPES = [
  'order.created',
  'order.processing',
  'order.delivered',
  'order.partially_delivered',
  'order.cancelled',
  'order.refunded',
  'voucher.issued',
] as const;
export const EventType = z.enum(EVENT_TYPES).meta({ id: 'EventType' });
export type EventType = (typeof EVENT_TYPES)[number];

/** Fields every order event carries. */
const orderBase = {
  order_id: OrderId,
  status: OrderStatus,
  total_amount: Amount,
  currency: Currency,
  reference: z.string().nullable(),
};

export const OrderEventData = z.looseObject(orderBase).meta({ id: 'OrderEventData' });

export const OrderDeliveredData = z
  .looseObject({
    ...orderBase,
    fulfilled_from: FulfilledFrom,
    vouchers: z.array(z.looseObject({ product_id: z.string(), expiry: DateOnly.nullable() })),
  })
  .meta({ id: 'OrderDeliveredData' });

export const OrderPartiallyDeliveredData = z
  .looseObject({
    ...orderBase,
    delivered_count: z.number().int().nonnegative(),
    failed_count: z.number().int().nonnegative(),
  })
  .meta({ id: 'OrderPartiallyDeliveredData' });

export const OrderCancelledData = z
  .looseObject({
    ...orderBase,
    reason: z.string(),
    cancelled_by: z.enum(['admin', 'partner']),
  })
  .meta({ id: 'OrderCancelledData' });

export const OrderRefundedData = z
  .looseObject({
    ...orderBase,
    refund_amount: Amount,
    transaction_id: TransactionId,
  })
  .meta({ id: 'OrderRefundedData' });

export const VoucherIssuedData = z
  .looseObject({
    order_id: OrderId,
    voucher_id: VoucherId,
    product_id: z.string(),
    denomination: z.number(),
    expiry: DateOnly.nullable(),
  })
  .meta({ id: 'VoucherIssuedData' });

/** The `data` schema of each event type. */
export const EVENT_DATA = {
  'order.created': OrderEventData,
  'order.processing': OrderEventData,
  'order.delivered': OrderDeliveredData,
  'order.partially_delivered': OrderPartiallyDeliveredData,
  'order.cancelled': OrderCancelledData,
  'order.refunded': OrderRefundedData,
  'voucher.issued': VoucherIssuedData,
} as const satisfies Record<EventType, z.ZodType>;

function envelopeOf<T extends EventType>(type: T) {
  return z.looseObject({
    event: z.literal(type),
    event_id: EventId,
    created_at: Timestamp,
    data: EVENT_DATA[type],
  });
}

/** Any event envelope, discriminated on `event`. */
export const EventEnvelope = z
  .discriminatedUnion('event', [
    envelopeOf('order.created'),
    envelopeOf('order.processing'),
    envelopeOf('order.delivered'),
    envelopeOf('order.partially_delivered'),
    envelopeOf('order.cancelled'),
    envelopeOf('order.refunded'),
    envelopeOf('voucher.issued'),
  ])
  .meta({ id: 'EventEnvelope' });
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/** Field names that must never appear in an event payload. */
export const FORBIDDEN_EVENT_FIELDS = ['code', 'pin', 'code_last4'] as const;
