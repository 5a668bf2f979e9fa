/**
 * GET /categories, GET /products (filters currency, country, category_id), GET /products/{id}:
 * which records, in which order; the dialect puts them on the wire.
 */
import { SandboxHttpError } from '../../http/errors.js';
import type { ListQuery } from '../../dialects/types.js';
import type { Handler } from '../context.js';
import { own } from '../../core/records.js';

export const listCategories: Handler = ({ rt, partner, query }) => {
  const open = rt.state.categories
    .filter((c) => partner.categories.includes(c.category_id))
    .sort((a, b) => (a.category_id < b.category_id ? -1 : 1));
  return rt.dialect.present.categories(open, query as ListQuery);
};

export const listProducts: Handler = ({ rt, partner, query }) => {
  const rows = Object.values(rt.state.products)
    .filter((p) => partner.categories.includes(p.category_id))
    .filter((p) => query.currency === undefined || p.currency === query.currency)
    .filter((p) => query.country === undefined || p.countries.includes(query.country as string))
    .filter((p) => query.category_id === undefined || p.category_id === query.category_id)
    .sort((a, b) => (a.product_id < b.product_id ? -1 : 1));
  return rt.dialect.present.products(rows, query as ListQuery);
};

export const getProduct: Handler = ({ rt, partner, params }) => {
  const p = own(rt.state.products, params.product_id);
  if (!p)
    throw new SandboxHttpError(
      'NOT_FOUND',
      `Product ${JSON.stringify(params.product_id)} does not exist; list products with GET /products`,
    );
  if (!partner.categories.includes(p.category_id)) {
    throw new SandboxHttpError(
      'PRODUCT_NOT_AVAILABLE',
      `Product ${p.product_id} is in category ${p.category_id}, which is not open to your organisation`,
    );
  }
  return rt.dialect.present.product(p);
};
