/**
 * Categories and products of the document dialect. The document names the product's
 * attributes (product id, denominations, vendor, currency, expiry policy, availability)
 * but shows no field name beyond product_id, so each gets a name other than ours, and the
 * expiry policy is a sentence rather than an object.
 */
import type { ExpiryPolicy } from '../../../contract/catalog.js';
import { toMinor } from '../../../contract/money-format.js';
import { availability } from '../../domain/views.js';
import type { CategoryRecord, ProductRecord } from '../../state/types.js';
import { decimalString } from './money.js';

export function categoryDoc(c: CategoryRecord) {
  return { id: c.category_id, title: c.name, summary: c.description };
}

/** "12 months from issue", "until 2027-12-31", "never". */
export function expiryText(policy: ExpiryPolicy): string {
  if (policy.type === 'months_from_issue') return `${policy.months} ${policy.months === 1 ? 'month' : 'months'} from issue`;
  if (policy.type === 'fixed_date') return `until ${policy.date}`;
  return 'never';
}

/** Every denomination (never cut), as numeric strings with the currency's minor digits. */
export function productDoc(p: ProductRecord) {
  return {
    product_id: p.product_id,
    title: p.name,
    vendor_name: p.vendor,
    currency: p.currency,
    countries: [...p.countries],
    denominations: p.denominations.map((d) => decimalString(toMinor(d, p.currency), p.currency)),
    category: p.category_id,
    expiry: expiryText(p.expiry_policy),
  };
}

/** The single product: its availability as a plain word (in_stock, low, out_of_stock). */
export function productDetailDoc(p: ProductRecord) {
  return { ...productDoc(p), availability: availability(p).status };
}
