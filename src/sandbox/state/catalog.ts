/**
 * The seeded catalog: the deterministic sandbox products plus a catalog of ordinary
 * products across 5 vendors, 4 currencies, 5 countries and 4 categories (`travel` is not
 * open to the default partner), with every expiry policy kind. The seed decides the cache
 * stock per denomination.
 */
import type { ExpiryPolicy } from '../../contract/catalog.js';
import type { Rng } from '../core/random.js';
import { RESTRICTED_CATEGORY, SANDBOX_CATEGORY, SANDBOX_DENOMINATIONS, SANDBOX_PRODUCTS } from '../products.js';
import type { CategoryRecord, ProductBehaviour, ProductRecord } from './types.js';

export const CATEGORIES: readonly CategoryRecord[] = [
  { category_id: SANDBOX_CATEGORY, name: 'Sandbox test products', description: 'Deterministic products, one per fulfilment path' },
  { category_id: 'retail', name: 'Retail', description: 'Department stores, books and home' },
  { category_id: 'entertainment', name: 'Entertainment', description: 'Games, cinema and streaming' },
  { category_id: RESTRICTED_CATEGORY, name: 'Travel', description: 'Airlines and hotels (by agreement only)' },
];

/** A product as seeded: its catalog fields, the rest of its record derived from `stock`. */
type ProductSeed = Pick<
  ProductRecord,
  'product_id' | 'name' | 'category_id' | 'vendor' | 'currency' | 'countries' | 'denominations' | 'expiry_policy'
> &
  Partial<Pick<ProductRecord, 'behaviour' | 'has_pin'>> & {
    /** Stock profile of an ordinary product. */
    stock?: 'plenty' | 'low' | 'none';
  };

const MONTHS_12: ExpiryPolicy = { type: 'months_from_issue', months: 12 };
const MONTHS_24: ExpiryPolicy = { type: 'months_from_issue', months: 24 };
const NO_EXPIRY: ExpiryPolicy = { type: 'none' };

function sandboxProduct(product_id: string, name: string, behaviour: ProductBehaviour): ProductSeed {
  return {
    product_id,
    name,
    behaviour,
    category_id: SANDBOX_CATEGORY,
    vendor: 'sandbox-vendor',
    currency: 'USD',
    countries: ['US'],
    denominations: [...SANDBOX_DENOMINATIONS],
    expiry_policy: MONTHS_12,
    has_pin: true,
  };
}

const SEEDS: readonly ProductSeed[] = [
  sandboxProduct(SANDBOX_PRODUCTS.instant, 'Sandbox instant (always from cache)', 'instant'),
  sandboxProduct(SANDBOX_PRODUCTS.async, 'Sandbox asynchronous (vendor fulfilment)', 'async'),
  sandboxProduct(SANDBOX_PRODUCTS.partial, 'Sandbox partial delivery', 'partial'),
  sandboxProduct(SANDBOX_PRODUCTS.gated, 'Sandbox held at the admin gate', 'gated'),
  sandboxProduct(SANDBOX_PRODUCTS.outOfStock, 'Sandbox out of stock', 'out_of_stock'),
  sandboxProduct(SANDBOX_PRODUCTS.vendorFail, 'Sandbox vendor failure', 'vendor_fail'),
  {
    product_id: 'northwind-store-us',
    name: 'Northwind Store US',
    category_id: 'retail',
    vendor: 'northwind',
    currency: 'USD',
    countries: ['US'],
    denominations: [5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 250, 500],
    expiry_policy: MONTHS_12,
    stock: 'plenty',
  },
  {
    product_id: 'northwind-store-eu',
    name: 'Northwind Store Europe',
    category_id: 'retail',
    vendor: 'northwind',
    currency: 'EUR',
    countries: ['DE', 'FR'],
    denominations: [10, 20, 50, 100],
    expiry_policy: MONTHS_24,
    stock: 'plenty',
  },
  {
    product_id: 'northwind-home-uk',
    name: 'Northwind Home UK',
    category_id: 'retail',
    vendor: 'northwind',
    currency: 'GBP',
    countries: ['GB'],
    denominations: [10, 20, 25, 50, 100],
    expiry_policy: MONTHS_24,
    stock: 'low',
  },
  {
    product_id: 'sakura-books-jp',
    name: 'Sakura Books',
    category_id: 'retail',
    vendor: 'sakura',
    currency: 'JPY',
    countries: ['JP'],
    denominations: [500, 1000, 3000, 5000, 10000],
    expiry_policy: MONTHS_12,
    stock: 'plenty',
  },
  {
    product_id: 'blue-harbor-games-us',
    name: 'Blue Harbor Games US',
    category_id: 'entertainment',
    vendor: 'blue-harbor',
    currency: 'USD',
    countries: ['US'],
    denominations: [10, 20, 50],
    expiry_policy: NO_EXPIRY,
    stock: 'plenty',
    has_pin: true,
  },
  {
    product_id: 'blue-harbor-games-uk',
    name: 'Blue Harbor Games UK',
    category_id: 'entertainment',
    vendor: 'blue-harbor',
    currency: 'GBP',
    countries: ['GB'],
    denominations: [10, 25, 50],
    expiry_policy: NO_EXPIRY,
    stock: 'plenty',
    has_pin: true,
  },
  {
    product_id: 'blue-harbor-games-eu',
    name: 'Blue Harbor Games Europe',
    category_id: 'entertainment',
    vendor: 'blue-harbor',
    currency: 'EUR',
    countries: ['DE', 'FR'],
    denominations: [10, 25, 50],
    expiry_policy: NO_EXPIRY,
    stock: 'none',
    has_pin: true,
  },
  {
    product_id: 'lumen-cinemas-uk',
    name: 'Lumen Cinemas UK',
    category_id: 'entertainment',
    vendor: 'lumen',
    currency: 'GBP',
    countries: ['GB'],
    denominations: [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 75],
    expiry_policy: { type: 'fixed_date', date: '2027-12-31' },
    stock: 'plenty',
  },
  {
    product_id: 'lumen-cinemas-eu',
    name: 'Lumen Cinemas Europe',
    category_id: 'entertainment',
    vendor: 'lumen',
    currency: 'EUR',
    countries: ['DE', 'FR'],
    denominations: [10, 20, 30],
    expiry_policy: { type: 'fixed_date', date: '2027-06-30' },
    stock: 'low',
  },
  {
    product_id: 'sakura-arcade-jp',
    name: 'Sakura Arcade',
    category_id: 'entertainment',
    vendor: 'sakura',
    currency: 'JPY',
    countries: ['JP'],
    denominations: [1000, 3000, 5000, 10000],
    expiry_policy: NO_EXPIRY,
    stock: 'plenty',
    has_pin: true,
  },
  {
    product_id: 'skyline-air-us',
    name: 'Skyline Air US',
    category_id: RESTRICTED_CATEGORY,
    vendor: 'skyline',
    currency: 'USD',
    countries: ['US'],
    denominations: [50, 100, 250, 500],
    expiry_policy: MONTHS_24,
    stock: 'plenty',
  },
  {
    product_id: 'skyline-hotels-eu',
    name: 'Skyline Hotels Europe',
    category_id: RESTRICTED_CATEGORY,
    vendor: 'skyline',
    currency: 'EUR',
    countries: ['DE', 'FR', 'GB'],
    denominations: [50, 100, 200],
    expiry_policy: { type: 'fixed_date', date: '2028-03-31' },
    stock: 'plenty',
  },
  {
    product_id: 'skyline-rail-jp',
    name: 'Skyline Rail Japan',
    category_id: RESTRICTED_CATEGORY,
    vendor: 'skyline',
    currency: 'JPY',
    countries: ['JP'],
    denominations: [5000, 10000, 20000],
    expiry_policy: MONTHS_12,
    stock: 'plenty',
  },
];

function cacheFor(seed: ProductSeed, behaviour: ProductBehaviour, rng: Rng): Record<string, number> {
  const cached: Record<string, number> = {};
  for (const d of seed.denominations) {
    let n = 0;
    if (behaviour === 'instant') n = 1000;
    else if (behaviour === 'normal' && seed.stock === 'plenty') n = rng.int(5, 40);
    else if (behaviour === 'normal' && seed.stock === 'low') n = rng.int(0, 3);
    cached[String(d)] = n;
  }
  return cached;
}

export function seedProducts(rng: Rng): Record<string, ProductRecord> {
  const products: Record<string, ProductRecord> = {};
  for (const s of SEEDS) {
    const behaviour = s.behaviour ?? 'normal';
    products[s.product_id] = {
      product_id: s.product_id,
      name: s.name,
      category_id: s.category_id,
      vendor: s.vendor,
      currency: s.currency,
      countries: [...s.countries],
      denominations: [...s.denominations],
      expiry_policy: s.expiry_policy,
      cached: cacheFor(s, behaviour, rng),
      cache_unlimited: behaviour === 'instant',
      vendor_available: behaviour !== 'out_of_stock' && s.stock !== 'none',
      behaviour,
      has_pin: s.has_pin ?? false,
    };
  }
  return products;
}
