import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Category, Product, ProductDetail } from '../../src/contract/catalog.js';
import { ErrorEnvelope, listEnvelope, OrderId } from '../../src/contract/common.js';
import { EVENT_DATA, EVENT_TYPES, EventEnvelope, FORBIDDEN_EVENT_FIELDS } from '../../src/contract/events.js';
import { CreatePayoutRequest, Payout, Transaction, Wallet } from '../../src/contract/money.js';
import { CreateOrderRequest, Order, OrderCodes } from '../../src/contract/orders.js';
import { ReconciliationReport } from '../../src/contract/reconciliation.js';
import { RegisterWebhookRequest, WebhookEndpoint } from '../../src/contract/webhooks.js';

const ORD = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE';
const VCH = 'vch_01JDQ5N8AB3QK6V9W2X4Y8B1CE';
const VCH2 = 'vch_01JDQ5N8AC3QK6V9W2X4Y8B1CE';
const EVT = 'evt_01JDQ5P0AB3QK6V9W2X4Y8B1CE';
const TXN = 'txn_01JDQ5N7ZT3QK6V9W2X4Y8B1CE';
const PO = 'po_01JDQ5R1ZZ3QK6V9W2X4Y8B1CE';
const WH = 'wh_01JDQ5S2AA3QK6V9W2X4Y8B1CE';
const AT = '2026-11-22T09:30:00Z';

const product = {
  product_id: 'amazon-us-25',
  name: 'Amazon.com Gift Card',
  category_id: 'ecommerce',
  vendor: 'amazon',
  currency: 'USD',
  countries: ['US'],
  denominations: [10, 25, 50, 100],
  expiry_policy: { type: 'months_from_issue', months: 12 },
};

const deliveredOrder = {
  order_id: ORD,
  status: 'DELIVERED',
  items: [{ product_id: 'amazon-us-25', denomination: 25, quantity: 2 }],
  total_amount: 50,
  currency: 'USD',
  reference: 'po-4711',
  fulfilled_from: 'cache',
  created_at: AT,
  updated_at: AT,
  vouchers: [
    {
      voucher_id: VCH,
      product_id: 'amazon-us-25',
      denomination: 25,
      expiry: '2027-11-22',
      status: 'ISSUED',
      code: 'AMZN-TEST-0001',
      pin: '1234',
    },
    {
      voucher_id: VCH2,
      product_id: 'amazon-us-25',
      denomination: 25,
      expiry: '2027-11-22',
      status: 'ISSUED',
      code: 'AMZN-TEST-0002',
      pin: null,
    },
  ],
  timeline: [{ status: 'DELIVERED', at: AT, note: 'fulfilled from cache' }],
};

const pendingOrder = {
  ...deliveredOrder,
  status: 'PENDING',
  fulfilled_from: null,
  reference: null,
  vouchers: [],
  timeline: [{ status: 'PENDING', at: AT, note: null }],
};

const orderBase = { order_id: ORD, status: 'DELIVERED', total_amount: 50, currency: 'USD', reference: 'po-4711' };

const events: Record<(typeof EVENT_TYPES)[number], Record<string, unknown>> = {
  'order.created': { ...orderBase, status: 'PENDING' },
  'order.processing': { ...orderBase, status: 'PROCESSING' },
  'order.delivered': { ...orderBase, fulfilled_from: 'cache', vouchers: [{ product_id: 'amazon-us-25', expiry: '2027-11-22' }] },
  'order.partially_delivered': { ...orderBase, status: 'PARTIALLY_DELIVERED', delivered_count: 1, failed_count: 1 },
  'order.cancelled': { ...orderBase, status: 'CANCELLED', reason: 'rejected by the admin gate', cancelled_by: 'admin' },
  'order.refunded': { ...orderBase, status: 'REFUNDED', refund_amount: 50, transaction_id: TXN },
  'voucher.issued': { order_id: ORD, voucher_id: VCH, product_id: 'amazon-us-25', denomination: 25, expiry: null },
};

function issuesOf(schema: z.ZodType, value: unknown): string[] {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('catalog', () => {
  it('accepts categories and products of every expiry policy', () => {
    expect(Category.parse({ category_id: 'ecommerce', name: 'E-commerce', description: 'Online shops' })).toBeTruthy();
    expect(issuesOf(Product, product)).toEqual([]);
    expect(
      issuesOf(Product, { ...product, denominations_truncated: true, expiry_policy: { type: 'fixed_date', date: '2027-12-31' } }),
    ).toEqual([]);
    expect(issuesOf(Product, { ...product, expiry_policy: { type: 'none' } })).toEqual([]);
    expect(issuesOf(Product, { ...product, expiry_policy: { type: 'forever' } })).not.toEqual([]);
  });

  it('accepts a product detail with availability and cache stock per denomination', () => {
    const detail = { ...product, availability: { status: 'low', cached: { '25': 3, '50': 0 } } };
    expect(issuesOf(ProductDetail, detail)).toEqual([]);
    expect(issuesOf(ProductDetail, { ...detail, availability: { status: 'plenty', cached: {} } })).not.toEqual([]);
  });

  it('accepts the list envelope, with and without a next page', () => {
    expect(issuesOf(listEnvelope(Product), { data: [product], has_more: false, next_cursor: null })).toEqual([]);
    expect(issuesOf(listEnvelope(Product), { data: [product], has_more: true, next_cursor: 'c_2' })).toEqual([]);
    expect(issuesOf(listEnvelope(Product), { data: [product] })).not.toEqual([]);
  });
});

describe('order requests', () => {
  const item = { product_id: 'amazon-us-25', denomination: 25, quantity: 2 };

  it('accepts a realistic order, with and without currency and reference', () => {
    expect(issuesOf(CreateOrderRequest, { items: [item] })).toEqual([]);
    expect(
      issuesOf(CreateOrderRequest, { items: [item, { ...item, denomination: 50, quantity: 1 }], currency: 'USD', reference: 'po-4711' }),
    ).toEqual([]);
    expect(
      issuesOf(CreateOrderRequest, { items: Array.from({ length: 10 }, () => ({ ...item, quantity: 10 })), reference: 'r'.repeat(64) }),
    ).toEqual([]);
  });

  it('rejects 11 items', () => {
    expect(issuesOf(CreateOrderRequest, { items: Array.from({ length: 11 }, () => ({ ...item, quantity: 1 })) })).toEqual([
      'items: must hold at most 10 items',
    ]);
  });

  it('rejects no items', () => {
    expect(issuesOf(CreateOrderRequest, { items: [] })).toEqual(['items: must hold at least one item']);
  });

  it('rejects quantity 0, above 100, and fractional quantities', () => {
    expect(issuesOf(CreateOrderRequest, { items: [{ ...item, quantity: 0 }] })).toEqual(['items.0.quantity: must be at least 1']);
    expect(issuesOf(CreateOrderRequest, { items: [{ ...item, quantity: 101 }] })).toContain('items.0.quantity: must be at most 100');
    expect(issuesOf(CreateOrderRequest, { items: [{ ...item, quantity: 1.5 }] })).toEqual(['items.0.quantity: must be a whole number']);
  });

  it('rejects 101 vouchers across items', () => {
    const issues = issuesOf(CreateOrderRequest, {
      items: [
        { ...item, quantity: 60 },
        { ...item, denomination: 50, quantity: 41 },
      ],
    });
    expect(issues).toEqual(['items: orders at most 100 vouchers in all (this one orders 101)']);
  });

  it('rejects a reference over 64 characters', () => {
    expect(issuesOf(CreateOrderRequest, { items: [item], reference: 'r'.repeat(65) })).toEqual([
      'reference: must be at most 64 characters',
    ]);
  });

  it('rejects unknown fields, bad currencies and non-positive denominations', () => {
    expect(issuesOf(CreateOrderRequest, { items: [item], referense: 'typo' })).not.toEqual([]);
    expect(issuesOf(CreateOrderRequest, { items: [{ ...item, sku: 'x' }] })).not.toEqual([]);
    expect(issuesOf(CreateOrderRequest, { items: [item], currency: 'usd' })).toEqual(['currency: must be an ISO 4217 code such as USD']);
    expect(issuesOf(CreateOrderRequest, { items: [{ ...item, denomination: 0 }] })).toEqual([
      'items.0.denomination: must be a positive amount',
    ]);
  });
});

describe('order responses', () => {
  it('accepts the 201 cache-hit order with codes and the 202 pending order', () => {
    expect(issuesOf(Order, deliveredOrder)).toEqual([]);
    expect(issuesOf(Order, pendingOrder)).toEqual([]);
  });

  it('accepts GET /orders/{id} vouchers with code_last4 and expiry null (no-expiry product)', () => {
    const masked = {
      ...deliveredOrder,
      vouchers: [{ voucher_id: VCH, product_id: 'amazon-us-25', denomination: 25, expiry: null, status: 'ISSUED', code_last4: '0001' }],
    };
    expect(issuesOf(Order, masked)).toEqual([]);
  });

  it('keeps unknown fields on responses', () => {
    const parsed = Order.parse({
      ...deliveredOrder,
      loyalty_points: 7,
      vouchers: [{ ...deliveredOrder.vouchers[0], barcode_format: 'qr' }],
    }) as Record<string, unknown>;
    expect(parsed.loyalty_points).toBe(7);
    expect((parsed.vouchers as Record<string, unknown>[])[0]!.barcode_format).toBe('qr');
    const product2 = Product.parse({ ...product, brand_color: '#ff9900' }) as Record<string, unknown>;
    expect(product2.brand_color).toBe('#ff9900');
  });

  it('reports an unknown status and an id without its prefix; takes any id token after the prefix', () => {
    expect(issuesOf(Order, { ...deliveredOrder, status: 'SHIPPED' })).not.toEqual([]);
    expect(issuesOf(Order, { ...deliveredOrder, order_id: '123' })).not.toEqual([]);
    expect(issuesOf(Order, { ...deliveredOrder, order_id: 'ord_12 3' })).not.toEqual([]);
    expect(issuesOf(Order, { ...deliveredOrder, order_id: 'ord_' })).not.toEqual([]);
    // The document says only `ord_<id>`: the sandbox's 26-character shape is not a rule.
    expect(issuesOf(Order, { ...deliveredOrder, order_id: 'ord_981234' })).toEqual([]);
    expect(OrderId.safeParse('ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CI').success).toBe(true);
    // A slash is part of an id like any other character (sent encoded): the document leaves the id open.
    expect(OrderId.safeParse('ord_a/b').success).toBe(true);
    expect(OrderId.safeParse('ord_a\tb').success).toBe(false);
  });

  it('accepts the secure code endpoint response', () => {
    expect(
      issuesOf(OrderCodes, {
        order_id: ORD,
        data: [
          { voucher_id: VCH, product_id: 'amazon-us-25', denomination: 25, expiry: '2027-11-22', code: 'AMZN-TEST-0001', pin: '1234' },
        ],
      }),
    ).toEqual([]);
  });
});

describe('wallets, transactions and payouts', () => {
  it('accepts wallets and signed transaction amounts', () => {
    expect(issuesOf(Wallet, { currency: 'JPY', available: 120000, reserved: 0, updated_at: AT })).toEqual([]);
    expect(
      issuesOf(Transaction, {
        transaction_id: TXN,
        type: 'ORDER_DEBIT',
        amount: -50,
        currency: 'USD',
        balance_after: 950,
        order_id: ORD,
        description: 'Order ' + ORD,
        created_at: AT,
      }),
    ).toEqual([]);
    expect(
      issuesOf(Transaction, {
        transaction_id: TXN,
        type: 'PAYOUT',
        amount: -125.5,
        currency: 'EUR',
        balance_after: 0,
        payout_id: PO,
        description: 'Payout',
        created_at: AT,
      }),
    ).toEqual([]);
    expect(
      issuesOf(Transaction, {
        transaction_id: TXN,
        type: 'CHARGEBACK',
        amount: 1,
        currency: 'USD',
        balance_after: 1,
        description: '',
        created_at: AT,
      }),
    ).not.toEqual([]);
  });

  it('accepts payouts and rejects non-positive amounts', () => {
    expect(issuesOf(CreatePayoutRequest, { currency: 'EUR', amount: 125.5, reference: 'payout-2026-11' })).toEqual([]);
    expect(issuesOf(CreatePayoutRequest, { currency: 'EUR', amount: 0 })).toEqual(['amount: must be a positive amount']);
    expect(issuesOf(Payout, { payout_id: PO, status: 'PENDING', amount: 125.5, currency: 'EUR', reference: null, created_at: AT })).toEqual(
      [],
    );
  });
});

describe('webhook endpoint', () => {
  it('accepts registration requests and rejects other schemes and unknown events', () => {
    expect(issuesOf(RegisterWebhookRequest, { url: 'https://partner.example/hooks' })).toEqual([]);
    expect(
      issuesOf(RegisterWebhookRequest, {
        url: 'http://127.0.0.1:8080/hook',
        events: ['order.delivered'],
        description: 'local',
        rotate_secret: true,
      }),
    ).toEqual([]);
    expect(issuesOf(RegisterWebhookRequest, { url: 'ftp://partner.example/hooks' })).not.toEqual([]);
    expect(issuesOf(RegisterWebhookRequest, { url: 'https://partner.example/hooks', events: ['order.shipped'] })).not.toEqual([]);
  });

  it('accepts the endpoint with a whsec_ secret on creation and without one afterwards', () => {
    const endpoint = { webhook_id: WH, url: 'https://partner.example/hooks', events: [...EVENT_TYPES], created_at: AT, updated_at: AT };
    expect(issuesOf(WebhookEndpoint, { ...endpoint, signing_secret: 'whsec_test_5b2d8e19c7f04a63' })).toEqual([]);
    expect(issuesOf(WebhookEndpoint, endpoint)).toEqual([]);
    expect(issuesOf(WebhookEndpoint, { ...endpoint, signing_secret: 'sk_wrong' })).not.toEqual([]);
  });
});

describe('events', () => {
  it('accepts a realistic envelope of every event type and keeps unknown fields', () => {
    for (const type of EVENT_TYPES) {
      const envelope = { event: type, event_id: EVT, created_at: AT, data: { ...events[type], future_field: 1 }, api_version: 'v1' };
      expect(issuesOf(EventEnvelope, envelope), type).toEqual([]);
      const parsed = EventEnvelope.parse(envelope) as unknown as { data: Record<string, unknown>; api_version: string };
      expect(parsed.data.future_field).toBe(1);
      expect(parsed.api_version).toBe('v1');
    }
  });

  it('accepts the order.delivered payload exactly as the API document shows it', () => {
    expect(issuesOf(EVENT_DATA['order.delivered'], events['order.delivered'])).toEqual([]);
  });

  it('rejects an envelope whose data does not fit its event type, and unknown event types', () => {
    expect(issuesOf(EventEnvelope, { event: 'order.refunded', event_id: EVT, created_at: AT, data: events['order.created'] })).not.toEqual(
      [],
    );
    expect(issuesOf(EventEnvelope, { event: 'order.shipped', event_id: EVT, created_at: AT, data: {} })).not.toEqual([]);
  });

  it('has no code or pin field in any event payload schema', () => {
    for (const type of EVENT_TYPES) {
      const json = JSON.stringify(z.toJSONSchema(EVENT_DATA[type]));
      for (const field of FORBIDDEN_EVENT_FIELDS) expect(json, `${type} ${field}`).not.toContain(`"${field}":`);
    }
    const envelope = JSON.stringify(z.toJSONSchema(EventEnvelope));
    for (const field of FORBIDDEN_EVENT_FIELDS) expect(envelope).not.toContain(`"${field}":`);
  });
});

describe('errors and reconciliation', () => {
  it('accepts the error envelope with and without details', () => {
    expect(
      issuesOf(ErrorEnvelope, {
        error: { name: 'InsufficientInventory', code: 'INSUFFICIENT_INVENTORY', message: 'no vouchers available' },
      }),
    ).toEqual([]);
    expect(
      issuesOf(ErrorEnvelope, {
        error: {
          name: 'ValidationFailed',
          code: 'VALIDATION_FAILED',
          message: 'invalid',
          details: [{ path: 'items.0.quantity', message: 'must be at least 1' }],
        },
      }),
    ).toEqual([]);
    expect(issuesOf(ErrorEnvelope, { message: 'flat error' })).not.toEqual([]);
  });

  it('accepts the planned reconciliation report of the document', () => {
    const report = {
      date: '2026-11-21',
      summary: { orders_total: 12, vouchers_allocated: 30, matched: 29, drifted: 1, unmatched: 0 },
      drifts: [
        {
          order_id: ORD,
          vendor: 'amazon',
          product_id: 'amazon-us-25',
          our_allocation: VCH,
          vendor_record: 'AMZ-REF-9',
          detected_at: AT,
          resolution: 'pending',
        },
      ],
      generated_at: AT,
    };
    expect(issuesOf(ReconciliationReport, report)).toEqual([]);
    expect(issuesOf(ReconciliationReport, { ...report, drifts: [{ ...report.drifts[0], resolution: 'ignored' }] })).not.toEqual([]);
  });
});
