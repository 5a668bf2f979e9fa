import * as z from 'zod';
import { DateOnly, OrderId, Timestamp } from './common.js';

export const DRIFT_RESOLUTIONS = ['pending', 'resolved', 'escalated'] as const;

export const Drift = z
  .looseObject({
    order_id: OrderId,
    vendor: z.string(),
    product_id: z.string(),
    our_allocation: z.string(),
    vendor_record: z.string(),
    detected_at: Timestamp,
    resolution: z.enum(DRIFT_RESOLUTIONS),
  })
  .meta({ id: 'Drift' });
export type Drift = z.infer<typeof Drift>;

/** Planned: the contract may change before release. */
export const ReconciliationReport = z
  .looseObject({
    date: DateOnly,
    summary: z.looseObject({
      orders_total: z.number().int(),
      vouchers_allocated: z.number().int(),
      matched: z.number().int(),
      drifted: z.number().int(),
      unmatched: z.number().int(),
    }),
    drifts: z.array(Drift),
    generated_at: Timestamp,
  })
  .meta({ id: 'ReconciliationReport' });
export type ReconciliationReport = z.infer<typeof ReconciliationReport>;
