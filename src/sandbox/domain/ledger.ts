/**
 * The wallet ledger in integer minor units. Every balance change is one transaction with
 * its balance_after, and a balance never goes negative: debits are checked and applied in
 * one synchronous step, so concurrent requests cannot overdraw.
 */
import type { TransactionType } from '../../contract/money.js';
import { fromMinor } from '../../contract/money-format.js';
import { formatMoney } from '../../contract/money-format.js';
import { SandboxHttpError, validationFailed } from '../http/errors.js';
import type { Runtime } from '../runtime.js';
import type { PartnerRecord, TransactionRecord, WalletRecord } from '../state/types.js';
import { flat } from '../core/flat.js';

export interface LedgerEntry {
  type: TransactionType;
  /** Signed minor units: negative for debits. */
  amount_minor: number;
  currency: string;
  description: string;
  order_id?: string;
  payout_id?: string;
}

function wallet(rt: Runtime, partner: PartnerRecord, currency: string): WalletRecord {
  let w = partner.wallets[currency];
  if (!w) {
    w = { available_minor: 0, updated_at: rt.clock.now() };
    partner.wallets[currency] = w;
  }
  return w;
}

export function balanceMinor(partner: PartnerRecord, currency: string): number {
  return partner.wallets[currency]?.available_minor ?? 0;
}

/** Apply one entry. Debits beyond the balance throw 402 INSUFFICIENT_FUNDS and change nothing. */
export function post(rt: Runtime, partner: PartnerRecord, entry: LedgerEntry): TransactionRecord {
  if (!Number.isSafeInteger(entry.amount_minor)) throw new RangeError('ledger amounts are whole minor units');
  const current = balanceMinor(partner, entry.currency);
  // Past 2^53 − 1 minor units a balance stops being exact: refused, nothing changes.
  if (!Number.isSafeInteger(current + entry.amount_minor)) {
    throw validationFailed([
      {
        path: 'amount',
        message: `the ${entry.currency} balance would be more than ${Number.MAX_SAFE_INTEGER} minor units, the most the ledger holds exactly`,
      },
    ]);
  }
  if (entry.amount_minor < 0 && current + entry.amount_minor < 0) {
    throw new SandboxHttpError(
      'INSUFFICIENT_FUNDS',
      partner.wallets[entry.currency] === undefined
        ? `There is no ${entry.currency} wallet: the ${formatMoney(fromMinor(-entry.amount_minor, entry.currency), entry.currency)} needed cannot be debited`
        : `The ${entry.currency} wallet holds ${formatMoney(fromMinor(current, entry.currency), entry.currency)}, less than the ${formatMoney(fromMinor(-entry.amount_minor, entry.currency), entry.currency)} needed; top it up${entry.type === 'PAYOUT' ? ' or pay out less' : ' or order less'}`,
    );
  }
  const w = wallet(rt, partner, entry.currency);
  const now = rt.clock.now();
  w.available_minor = current + entry.amount_minor;
  w.updated_at = now;
  const txn: TransactionRecord = {
    transaction_id: rt.ids.next('txn'),
    partner_id: partner.partner_id,
    type: entry.type,
    amount_minor: entry.amount_minor,
    currency: entry.currency,
    balance_after_minor: w.available_minor,
    order_id: entry.order_id ?? null,
    payout_id: entry.payout_id ?? null,
    description: flat(entry.description),
    created_at: now,
  };
  rt.state.transactions.push(txn);
  return txn;
}
