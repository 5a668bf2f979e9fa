/** `vouchers products get ID`: GET /products/{product_id}. */
import { getProduct } from '../../api/catalog.js';
import { withMeantProduct } from '../../api/product-slip.js';
import type { ProductDetail } from '../../contract/catalog.js';
import { UsageError } from '../../core/errors/index.js';
import { styleStatus } from '../../core/output/format.js';
import { fitsLayout } from '../../core/output/generic.js';
import { handleFieldsFlag, printRecord, type RecordField } from '../../core/output/print.js';
import { printedNoBody } from '../../core/output/no-body.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { describeExpiry, listText } from './expiry.js';
import type { ProductsGetOptions } from './index.js';

export type { ProductsGetOptions };

/** "10: 12 · 25: 0 · 50: 3": cached stock per denomination, in the product's denomination order. */
export function describeStock(p: ProductDetail): string {
  const cached =
    p.availability !== null &&
    typeof p.availability === 'object' &&
    p.availability.cached !== null &&
    typeof p.availability.cached === 'object'
      ? p.availability.cached
      : undefined;
  if (!cached || !Array.isArray(p.denominations)) return '';
  const keys = new Set(Object.keys(cached));
  const parts = p.denominations.map((d) => {
    const key = [String(d), typeof d === 'number' ? d.toFixed(2) : String(d)].find((k) => keys.has(k));
    if (key) keys.delete(key);
    return `${d}: ${key ? cached[key] : 0}`;
  });
  for (const k of keys) parts.push(`${k}: ${cached[k]}`);
  return parts.join(' · ');
}

/**
 * The availability's status when it is ours (`{"status", "cached"}`, the cached stock shown on
 * its own line), a word as sent, else an object of another shape as its JSON: nothing the
 * server said is dropped.
 */
function availabilityText(a: unknown): unknown {
  if (a === null || typeof a !== 'object') return a;
  const keys = Object.keys(a);
  const status = (a as { status?: unknown }).status;
  if (typeof status === 'string' && keys.every((k) => k === 'status' || k === 'cached')) return status;
  return keys.length === 0 ? '' : JSON.stringify(a);
}

function fieldsOf(p: ProductDetail): RecordField[] {
  return [
    { label: 'product_id', value: p.product_id },
    { label: 'name', value: p.name },
    { label: 'category_id', value: p.category_id },
    { label: 'vendor', value: p.vendor },
    { label: 'currency', value: p.currency },
    { label: 'countries', value: listText(p.countries, ', ') },
    { label: 'denominations', value: listText(p.denominations, ', ') },
    // A server may give availability as a word rather than an object, or as an object of its
    // own shape ({"available": true, "stock": {…}}): that is shown as it came.
    { label: 'availability', value: availabilityText(p.availability), style: styleStatus },
    { label: 'cached_stock', value: describeStock(p) },
    { label: 'expiry', value: describeExpiry(p.expiry_policy) },
  ];
}

const FIELDS = [
  'product_id',
  'name',
  'category_id',
  'vendor',
  'currency',
  'countries',
  'denominations',
  'availability',
  'cached_stock',
  'expiry',
  'expiry_policy',
];

export async function run(f: Factory, productId: string, options: ProductsGetOptions): Promise<void> {
  if (!productId.trim()) throw new UsageError('a product id is required', 'list them with vouchers products list');
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, FIELDS, { open: true })) return;
  const client = await f.client();
  const id = productId.trim();
  let res;
  try {
    res = await getProduct(client, id, { signal: f.io.signal });
  } catch (error) {
    throw await withMeantProduct(error, client, [id], f.globals(), f.io.signal);
  }
  if (await printedNoBody(f.io, settings, res, `GET /products/${productId.trim()}`)) return;
  const required = ['product_id', 'name', 'currency', 'denominations'];
  await printRecord(f.io, res.data, fitsLayout(res.data, required) ? fieldsOf(res.data) : [], settings, { required });
}
