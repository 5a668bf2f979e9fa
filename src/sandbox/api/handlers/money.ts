/** GET /wallets, GET /transactions (filters, newest first), POST /payouts; the dialect puts them on the wire. */
import type { CreatePayoutRequest } from '../../../contract/money.js';
import { compareIds } from '../../core/ids.js';
import { dayEnd, dayStart } from '../../core/time.js';
import type { ListQuery } from '../../dialects/types.js';
import { post } from '../../domain/ledger.js';
import { requireAmount } from '../../domain/amount.js';
import type { Handler } from '../context.js';

export const listWallets: Handler = ({ rt, partner }) =>
  rt.dialect.present.wallets(Object.entries(partner.wallets).sort(([a], [b]) => (a < b ? -1 : 1)));

export const listTransactions: Handler = ({ rt, partner, query }) => {
  const from = query.from === undefined ? -Infinity : dayStart(query.from as string);
  const to = query.to === undefined ? Infinity : dayEnd(query.to as string);
  const rows = rt.state.transactions
    .filter((t) => t.partner_id === partner.partner_id)
    .filter((t) => query.order_id === undefined || t.order_id === query.order_id)
    .filter((t) => query.type === undefined || t.type === query.type)
    .filter((t) => t.created_at >= from && t.created_at < to)
    .sort((a, b) => compareIds(b.transaction_id, a.transaction_id));
  return rt.dialect.present.transactions(rows, query as ListQuery);
};

export const createPayout: Handler = ({ rt, partner, body }) => {
  const req = body as CreatePayoutRequest;
  const amountMinor = requireAmount(req.amount, req.currency, 'amount');
  // A currency without a wallet is refused by the ledger (402 naming the missing wallet);
  // the amount is above zero, so no empty wallet is ever created by a payout.
  const payoutId = rt.ids.next('po');
  const txn = post(rt, partner, {
    type: 'PAYOUT',
    amount_minor: -amountMinor,
    currency: req.currency,
    description: `Payout ${payoutId}${req.reference ? ` (${req.reference})` : ''}`,
    payout_id: payoutId,
  });
  const payout = {
    payout_id: payoutId,
    partner_id: partner.partner_id,
    status: 'PAID' as const,
    amount_minor: amountMinor,
    currency: req.currency,
    reference: req.reference ?? null,
    transaction_id: txn.transaction_id,
    created_at: rt.clock.now(),
  };
  rt.state.payouts[payoutId] = payout;
  return rt.dialect.present.payout(payout);
};
