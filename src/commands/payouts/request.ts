/** Payout flags → a CreatePayoutRequest, checked against the contract before sending. */
import { CreatePayoutRequest } from '../../contract/money.js';
import { amountReason, checkAmount, majorText, MAX_MINOR } from '../../contract/amount.js';
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
    throw new UsageError(
      `--currency ${JSON.stringify(input.currency)} is not a currency code (ISO 4217: three letters)`,
      'use the code of one of your wallets, such as USD, EUR, GBP or JPY: vouchers wallets list',
    );
  }
  const text = input.amount;
  // Written plainly, and exact from the digits typed (never through a float that rounds): the decisions file's rule.
  const checked = checkAmount(text, currency);
  if (!checked.ok) {
    const digits = minorDigits(currency);
    const whole = /^\d+/.exec(text.trim())?.[0] ?? '250';
    const hint =
      checked.reason === 'is not a number' || checked.reason.includes('plainly')
        ? 'use a positive number in major units, e.g. --amount 250.00'
        : checked.reason.includes('decimal digits')
          ? digits === 0
            ? `${currency} has no minor unit: use a whole number, e.g. --amount ${whole}`
            : `use at most ${digits} decimal digits, e.g. --amount ${whole}.${'0'.repeat(digits)}`
          : checked.reason.includes('zero')
            ? 'pay out a positive amount'
            : `pay out at most ${majorText(MAX_MINOR, digits)} ${currency} at a time`;
    throw new UsageError(`--amount ${JSON.stringify(text)} ${amountReason(checked.reason, currency)}`, hint);
  }
  const amount = checked.major;
  const reference = input.reference;
  const parsed = CreatePayoutRequest.safeParse({ currency, amount, ...(reference !== undefined ? { reference } : {}) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'request';
    throw new UsageError(
      `--${field === 'request' ? 'amount' : field} is not valid: ${issue?.message ?? 'rejected by the contract'}`,
      field === 'reference' ? 'use 1 to 64 characters' : undefined,
    );
  }
  return parsed.data;
}

/** 1–255 printable ASCII characters, as the contract requires. */
export function checkIdempotencyKey(key: string): string {
  if (!/^[\x20-\x7E]{1,255}$/.test(key)) {
    throw new UsageError(
      '--idempotency-key must be 1 to 255 printable ASCII characters',
      'use the key shown by the first attempt, or omit the flag to get a new one',
    );
  }
  return key;
}
