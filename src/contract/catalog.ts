import * as z from 'zod';
import { Country, Currency } from './common.js';

export const Category = z
  .looseObject({
    category_id: z.string(),
    name: z.string(),
    description: z.string(),
  })
  .meta({ id: 'Category' });
export type Category = z.infer<typeof Category>;

export const ExpiryPolicy = z
  .discriminatedUnion('type', [
    z.looseObject({ type: z.literal('months_from_issue'), months: z.number().int().positive() }),
    z.looseObject({ type: z.literal('fixed_date'), date: z.iso.date() }),
    z.looseObject({ type: z.literal('none') }),
  ])
  .meta({ id: 'ExpiryPolicy', description: 'How the expiry of an issued voucher is determined' });
export type ExpiryPolicy = z.infer<typeof ExpiryPolicy>;

const productFields = {
  product_id: z.string(),
  name: z.string(),
  category_id: z.string(),
  vendor: z.string(),
  currency: Currency,
  countries: z.array(Country),
  denominations: z.array(z.number().positive()),
  expiry_policy: ExpiryPolicy,
};

/** Product as listed by GET /products (denominations may be cut to the first 10). */
export const Product = z
  .looseObject({
    ...productFields,
    denominations_truncated: z.boolean().optional(),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;

export const AVAILABILITY_STATUSES = ['in_stock', 'low', 'out_of_stock'] as const;
export const Availability = z
  .looseObject({
    status: z.enum(AVAILABILITY_STATUSES),
    cached: z
      .record(z.string(), z.number().int().nonnegative())
      .meta({ description: 'Cache stock per denomination (keys are denominations)' }),
  })
  .meta({ id: 'Availability' });
export type Availability = z.infer<typeof Availability>;

/** Product as returned by GET /products/{product_id}: full denominations and availability. */
export const ProductDetail = z
  .looseObject({
    ...productFields,
    availability: Availability,
  })
  .meta({ id: 'ProductDetail' });
export type ProductDetail = z.infer<typeof ProductDetail>;

export const ProductFilters = z.strictObject({
  currency: Currency.optional(),
  country: Country.optional(),
  category_id: z.string().min(1).optional(),
});
export type ProductFilters = z.infer<typeof ProductFilters>;
