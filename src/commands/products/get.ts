/** `vouchers products get ID`: GET /products/{product_id}. */
import { getProduct } from '../../api/catalog.js';
import type { ProductDetail } from '../../contract/catalog.js';
import { UsageError } from '../../core/errors/index.js';
import { styleStatus } from '../../core/output/format.js';
import { handleFieldsFlag, printRecord, type RecordField } from '../../core/output/print.js';
import { resolveOutput, type OutputFlags } from '../../core/output/options.js';
import type { Factory } from '../../factory.js';
import { describeExpiry } from './expiry.js';

export type ProductsGetOptions = OutputFlags;

/** "10: 12 · 25: 0 · 50: 3": cached stock per denomination, in the product's denomination order. */
export function describeStock(p: ProductDetail): string {
  const cached = p.availability.cached;
  const keys = new Set(Object.keys(cached));
  const parts = p.denominations.map((d) => {
    const key = [String(d), d.toFixed(2)].find((k) => keys.has(k));
    if (key) keys.delete(key);
    return `${d}: ${key ? cached[key] : 0}`;
  });
  for (const k of keys) parts.push(`${k}: ${cached[k]}`);
  return parts.join(' · ');
}

function fieldsOf(p: ProductDetail): RecordField[] {
  return [
    { label: 'product_id', value: p.product_id },
    { label: 'name', value: p.name },
    { label: 'category_id', value: p.category_id },
    { label: 'vendor', value: p.vendor },
    { label: 'currency', value: p.currency },
    { label: 'countries', value: p.countries.join(', ') },
    { label: 'denominations', value: p.denominations.join(', ') },
    { label: 'availability', value: p.availability.status, style: styleStatus },
    { label: 'cached_stock', value: describeStock(p) },
    { label: 'expiry', value: describeExpiry(p.expiry_policy) },
  ];
}

const FIELDS = ['product_id', 'name', 'category_id', 'vendor', 'currency', 'countries', 'denominations', 'availability', 'cached_stock', 'expiry', 'expiry_policy'];

export async function run(f: Factory, productId: string, options: ProductsGetOptions): Promise<void> {
  if (!productId.trim()) throw new UsageError('a product id is required', 'list them with vouchers products list');
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, FIELDS)) return;
  const client = await f.client();
  const res = await getProduct(client, productId.trim(), { signal: f.io.signal });
  await printRecord(f.io, res.data, fieldsOf(res.data), settings);
}
