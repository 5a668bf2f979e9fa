/**
 * The `decisions` dialect (the default): contract-decisions.md, byte for byte. Lists are
 * `{data, has_more, next_cursor}`, writes answer 201/202, errors use our envelope, ids are
 * `<prefix>_` + 26 time-sortable characters.
 */
import { fromMinor } from '../../contract/money-format.js';
import { IdGenerator } from '../core/ids.js';
import { deliveredData, orderBase, voucherIssuedData } from '../domain/events.js';
import {
  categoryView,
  orderView,
  payoutView,
  productDetailView,
  productListView,
  transactionView,
  walletView,
  webhookView,
} from '../domain/views.js';
import { errorReply, jsonReply } from '../http/respond.js';
import { paginate } from '../api/paginate.js';
import type { Dialect } from './types.js';

export const DECISIONS: Dialect = {
  name: 'decisions',
  serves: (e, config) => !e.planned || config.enablePlanned,
  present: {
    categories: (rows, q) => {
      const page = paginate(rows, (c) => c.category_id, 'asc', q.limit, q.cursor, true);
      return jsonReply(200, { ...page, data: page.data.map(categoryView) });
    },
    products: (rows, q) => {
      const page = paginate(rows, (p) => p.product_id, 'asc', q.limit, q.cursor, true);
      return jsonReply(200, { ...page, data: page.data.map(productListView) });
    },
    product: (p) => jsonReply(200, productDetailView(p)),
    orderPlaced: (o, cacheHit) =>
      jsonReply(cacheHit ? 201 : 202, orderView(o, cacheHit ? 'created' : 'read'), { Location: `/api/v1/orders/${o.order_id}` }),
    order: (o) => jsonReply(200, orderView(o, 'read')),
    wallets: (rows) => jsonReply(200, { data: rows.map(([c, w]) => walletView(c, w)), has_more: false, next_cursor: null }),
    transactions: (rows, q) => {
      const page = paginate(rows, (t) => t.transaction_id, 'desc', q.limit, q.cursor);
      return jsonReply(200, { ...page, data: page.data.map(transactionView) });
    },
    payout: (p) => jsonReply(201, payoutView(p)),
    webhook: (hook, secret, created) => jsonReply(created ? 201 : 200, webhookView(hook, secret)),
  },
  payloads: {
    created: orderBase,
    processing: orderBase,
    delivered: deliveredData,
    // Added to orderBase's object, not spread: see orderBase.
    partiallyDelivered: (o, delivered, failed) => Object.assign(orderBase(o), { delivered_count: delivered, failed_count: failed }),
    cancelled: (o, reason, by) => Object.assign(orderBase(o), { reason, cancelled_by: by }),
    refunded: (o, amountMinor, transactionId) =>
      Object.assign(orderBase(o), { refund_amount: fromMinor(amountMinor, o.currency), transaction_id: transactionId }),
    voucherIssued: voucherIssuedData,
  },
  errorReply,
  codesInOrderReads: false,
  ids: (rng, now) => new IdGenerator(rng, now),
};
