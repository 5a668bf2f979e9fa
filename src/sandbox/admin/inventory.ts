/** Admin: set cache stock per denomination and the vendor's availability of a product. */
import { productDetailView } from '../domain/views.js';
import { SandboxHttpError, validationFailed } from '../http/errors.js';
import { jsonReply } from '../http/respond.js';
import type { AdminRoute } from './context.js';
import { StockBody } from './schemas.js';
import { own } from '../core/records.js';

export const INVENTORY_ROUTES: AdminRoute[] = [
  {
    method: 'PUT',
    path: '/stock',
    body: StockBody,
    handler: ({ rt, body }) => {
      const req = body as { product_id: string; denomination?: number; cached?: number; vendor_available?: boolean };
      const p = own(rt.state.products, req.product_id);
      if (!p) throw new SandboxHttpError('NOT_FOUND', `Product ${req.product_id} does not exist`);
      if (req.denomination !== undefined && !p.denominations.includes(req.denomination)) {
        throw validationFailed([
          { path: 'denomination', message: `is not a denomination of ${p.product_id}; choose one of ${p.denominations.join(', ')}` },
        ]);
      }
      if (req.cached !== undefined) {
        for (const d of req.denomination === undefined ? p.denominations : [req.denomination]) p.cached[String(d)] = req.cached;
        p.cache_unlimited = false;
      }
      if (req.vendor_available !== undefined) p.vendor_available = req.vendor_available;
      rt.changed();
      return jsonReply(200, { ...productDetailView(p), vendor_available: p.vendor_available });
    },
  },
];
