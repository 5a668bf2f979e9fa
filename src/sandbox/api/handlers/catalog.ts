/** GET /categories, GET /products (filters currency, country, category_id), GET /products/{id}. */
import { jsonReply } from '../../http/respond.js';
import { SandboxHttpError } from '../../http/errors.js';
import { categoryView, productDetailView, productListView } from '../../domain/views.js';
import { paginate } from '../paginate.js';
import type { Handler } from '../context.js';

export const listCategories: Handler = ({ rt, partner, query }) => {
  const open = rt.state.categories.filter((c) => partner.categories.includes(c.category_id)).sort((a, b) => (a.category_id < b.category_id ? -1 : 1));
  const page = paginate(open, (c) => c.category_id, 'asc', query.limit as number | undefined, query.cursor as string | undefined, true);
  return jsonReply(200, { ...page, data: page.data.map(categoryView) });
};

export const listProducts: Handler = ({ rt, partner, query }) => {
  const rows = Object.values(rt.state.products)
    .filter((p) => partner.categories.includes(p.category_id))
    .filter((p) => query.currency === undefined || p.currency === query.currency)
    .filter((p) => query.country === undefined || p.countries.includes(query.country as string))
    .filter((p) => query.category_id === undefined || p.category_id === query.category_id)
    .sort((a, b) => (a.product_id < b.product_id ? -1 : 1));
  const page = paginate(rows, (p) => p.product_id, 'asc', query.limit as number | undefined, query.cursor as string | undefined, true);
  return jsonReply(200, { ...page, data: page.data.map(productListView) });
};

export const getProduct: Handler = ({ rt, partner, params }) => {
  const p = rt.state.products[params.product_id ?? ''];
  if (!p) throw new SandboxHttpError('NOT_FOUND', `Product ${JSON.stringify(params.product_id)} does not exist; list products with GET /products`);
  if (!partner.categories.includes(p.category_id)) {
    throw new SandboxHttpError('PRODUCT_NOT_AVAILABLE', `Product ${p.product_id} is in category ${p.category_id}, which is not open to your organisation`);
  }
  return jsonReply(200, productDetailView(p));
};
