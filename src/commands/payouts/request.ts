/** Payout flags → a CreatePayoutRequest, checked against the contract before sending. */
import { CreatePayoutRequest } from '../../contract/money.js';
import { minorDigits } from '../../contract/money-format.js';
import { UsageError } from '../../core/errors/index.js';

export interface PayoutInput {
  amount: string;
  currency: string;
  reference?: string;
}

export function payoutRequest(input: PayoutInput): CreatePayoutRequest {
  const currency = input.currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) {
    throw new UsageError(`--currency ${JSON.stringify(input.currency)} is not a currency code (ISO 4217: three letters)`, 'use the code of one of your wallets, such as USD, EUR, GBP or JPY: vouchers wallets list');
  }
  const text = input.amount.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new UsageError(`--amount ${JSON.stringify(input.amount)} is not an amount`, 'use a positive number in major units, e.g. --amount 250.00');
  const digits = minorDigits(currency);
  const fraction = m[2] ?? '';
  if (fraction.replace(/0+$/, '').length > digits) {
    throw new UsageError(
      `--amount ${text} has more decimal digits than ${currency} allows (${digits})`,
      digits === 0 ? `${currency} has no minor unit: use a whole number, e.g. --amount ${m[1]}` : `use at most ${digits} decimal digits, e.g. --amount ${m[1]}.${'0'.repeat(digits)}`,
    );
  }
  const amount = Number(text);
  if (!(amount > 0) || !Number.isFinite(amount)) throw new UsageError(`--amount ${text} must be more than zero`, 'pay out a positive amount');
  const reference = input.reference;
  const parsed = CreatePayoutRequest.safeParse({ currency, amount, ...(reference !== undefined ? { reference } : {}) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'request';
    throw new UsageError(`--${field === 'request' ? 'amount' : field} is not valid: ${issue?.message ?? 'rejected by the contract'}`, field === 'reference' ? 'use 1 to 64 characters' : undefined);
  }
  return parsed.data;
}

/** 1–255 printable ASCII characters, as the contract requires. */
export function checkIdempotencyKey(key: string): string {
  if (!/^[\x20-\x7E]{1,255}$/.test(key)) {
    throw new UsageError('--idempotency-key must be 1 to 255 printable ASCII characters', 'use the key shown by the first attempt, or omit the flag to get a new one');
  }
  return key;
}
