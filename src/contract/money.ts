import * as z from 'zod';
import { Amount, Currency, DateOnly, OrderId, PayoutId, Timestamp, TransactionId } from './common.js';

export const Wallet = z
  .looseObject({
    currency: Currency,
    available: Amount,
    reserved: Amount,
    updated_at: Timestamp,
  })
  .meta({ id: 'Wallet' });
export type Wallet = z.infer<typeof Wallet>;

export const TRANSACTION_TYPES = ['TOP_UP', 'ORDER_DEBIT', 'REFUND', 'PAYOUT', 'ADJUSTMENT'] as const;
export const TransactionType = z.enum(TRANSACTION_TYPES).meta({ id: 'TransactionType' });
export type TransactionType = z.infer<typeof TransactionType>;

export const Transaction = z
  .looseObject({
    transaction_id: TransactionId,
    type: TransactionType,
    amount: Amount.meta({ description: 'Signed: negative for debits' }),
    currency: Currency,
    balance_after: Amount,
    order_id: OrderId.optional(),
    payout_id: PayoutId.optional(),
    description: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: 'Transaction' });
export type Transaction = z.infer<typeof Transaction>;

export const TransactionFilters = z.strictObject({
  from: DateOnly.optional(),
  to: DateOnly.optional(),
  order_id: OrderId.optional(),
  type: TransactionType.optional(),
});

export const PAYOUT_STATUSES = ['PENDING', 'PAID', 'FAILED'] as const;

export const CreatePayoutRequest = z
  .strictObject({
    currency: Currency,
    amount: z.number().positive('must be a positive amount'),
    reference: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
  })
  .meta({ id: 'CreatePayoutRequest' });
export type CreatePayoutRequest = z.infer<typeof CreatePayoutRequest>;

export const Payout = z
  .looseObject({
    payout_id: PayoutId,
    status: z.enum(PAYOUT_STATUSES),
    amount: Amount,
    currency: Currency,
    reference: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'Payout' });
export type Payout = z.infer<typeof Payout>;
