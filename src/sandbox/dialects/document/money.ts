/**
 * Money, wallets, transactions and payouts of the document dialect. The document shows no
 * field of these records, so every name differs from ours, and amounts are numeric strings
 * carrying the currency's minor digits ("1000.00", JPY "1000"), built from integer minor
 * units (never through a float).
 */
import type { TransactionType } from '../../../contract/money.js';
import { minorDigits } from '../../../contract/money-format.js';
import { iso } from '../../core/time.js';
import type { PayoutRecord, TransactionRecord, WalletRecord } from '../../state/types.js';

/** Integer minor units → "-12.50" (USD), "1000" (JPY). */
export function decimalString(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  if (digits === 0) return sign + text;
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Transaction kinds: lower case, and a plain `debit` for an order's debit. */
export const TRANSACTION_KINDS: Readonly<Record<TransactionType, string>> = {
  TOP_UP: 'top_up',
  ORDER_DEBIT: 'debit',
  REFUND: 'refund',
  PAYOUT: 'payout',
  ADJUSTMENT: 'adjustment',
};

export function walletDoc(currency: string, w: WalletRecord) {
  return { currency_code: currency, balance: decimalString(w.available_minor, currency), on_hold: decimalString(0, currency) };
}

export function transactionDoc(t: TransactionRecord) {
  return {
    id: t.transaction_id,
    kind: TRANSACTION_KINDS[t.type],
    amount: decimalString(t.amount_minor, t.currency),
    currency: t.currency,
    ...(t.order_id ? { order_id: t.order_id } : {}),
    posted_at: iso(t.created_at),
    memo: t.description,
  };
}

export function payoutDoc(p: PayoutRecord) {
  return { id: p.payout_id, state: p.status.toLowerCase(), amount: decimalString(p.amount_minor, p.currency), currency: p.currency };
}
