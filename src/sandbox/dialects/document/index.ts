/**
 * The `document` dialect: the API document exactly where it shows something, and a guess
 * other than contract-decisions.md wherever it says "not shown" (docs/sandbox.md, "The
 * document dialect"). The endpoints the document does not list (our extensions) are absent,
 * lists have other envelopes, the catalog (beyond product_id) and money records other
 * field names, writes answer 200, and errors the document does not name are RFC 9457
 * problem details.
 */
import { paginate } from '../../api/paginate.js';
import { jsonReply } from '../../http/respond.js';
import type { Dialect } from '../types.js';
import { categoryDoc, productDetailDoc, productDoc } from './catalog.js';
import { DOCUMENT_PAYLOADS } from './events.js';
import { DocumentIds } from './ids.js';
import { payoutDoc, transactionDoc, walletDoc } from './money.js';
import { orderDetailDoc, orderDoc } from './orders.js';
import { problemReply } from './problem.js';
import { webhookDoc } from './webhooks.js';

export const DOCUMENT: Dialect = {
  name: 'document',
  // The planned reconciliation endpoint has the document's own shape: served on request, as in the other dialect.
  serves: (e, config) => !e.extension && (!e.planned || config.enablePlanned),
  present: {
    // Catalog lists and wallets come whole: no page envelope, `limit` and `cursor` are accepted and ignored.
    categories: (rows) => jsonReply(200, rows.map(categoryDoc)),
    products: (rows) => jsonReply(200, { products: rows.map(productDoc) }),
    product: (p) => jsonReply(200, productDetailDoc(p)),
    orderPlaced: (o) => jsonReply(200, orderDoc(o)),
    // The answer may carry codes: never cached on the way.
    order: (o) => jsonReply(200, orderDetailDoc(o), { 'Cache-Control': 'no-store' }),
    wallets: (rows) => jsonReply(200, { wallets: rows.map(([c, w]) => walletDoc(c, w)) }),
    transactions: (rows, q) => {
      const page = paginate(rows, (t) => t.transaction_id, 'desc', q.limit, q.cursor);
      return jsonReply(200, { transactions: page.data.map(transactionDoc), has_more: page.has_more, next_cursor: page.next_cursor });
    },
    payout: (p) => jsonReply(200, payoutDoc(p)),
    webhook: (hook, secret) => jsonReply(200, webhookDoc(hook, secret)),
  },
  payloads: DOCUMENT_PAYLOADS,
  errorReply: problemReply,
  codesInOrderReads: true,
  ids: (rng, now, state) => new DocumentIds(rng, now, state),
};
