/** Request bodies of the admin surface (strict: unknown fields are refused). */
import * as z from 'zod';
import { Currency } from '../../contract/common.js';
import { DRIFT_RESOLUTIONS } from '../../contract/reconciliation.js';
import { parseCidr } from '../core/cidr.js';

const Cidr = z
  .string()
  .refine((s) => parseCidr(s) !== undefined, 'must be an IPv4 or IPv6 address or CIDR, e.g. 203.0.113.0/24 or 2001:db8::/32');
const Allowlist = z.array(Cidr).max(100);

export const ReasonBody = z.strictObject({ reason: z.string().min(1).max(200).optional() });
export const EmptyBody = z.strictObject({});
export const PartialBody = z.strictObject({ failed_count: z.number().int().min(1).optional() });

export const FundBody = z.strictObject({
  partner_id: z.string().min(1).optional(),
  currency: Currency,
  amount: z.number().refine((n) => n !== 0, 'must not be zero'),
  description: z.string().min(1).max(200).optional(),
  /** Post the entry this many times (load and benchmark set-up). */
  count: z.number().int().min(1).max(1_000_000).optional(),
});

export const StockBody = z.strictObject({
  product_id: z.string().min(1),
  denomination: z.number().positive().optional(),
  cached: z.number().int().min(0).optional(),
  vendor_available: z.boolean().optional(),
});

export const PartnerBody = z.strictObject({
  name: z.string().min(1).max(100),
  categories: z.array(z.string().min(1)).optional(),
  wallets: z.record(Currency, z.number().min(0)).optional(),
  allowlist: Allowlist.optional(),
});

export const KeyBody = z.strictObject({ allowlist: Allowlist.optional() });
export const AllowlistBody = z.strictObject({ allowlist: Allowlist });

export const AdvanceBody = z.strictObject({
  seconds: z
    .number()
    .positive()
    .max(366 * 86_400),
});

export const DriftBody = z.strictObject({
  order_id: z.string().min(1),
  vendor_record: z.string().min(1).max(200).optional(),
  unmatched: z.boolean().optional(),
});

export const ResolveBody = z.strictObject({
  resolution: z.enum(DRIFT_RESOLUTIONS.filter((r) => r !== 'pending') as ['resolved', 'escalated']),
});
