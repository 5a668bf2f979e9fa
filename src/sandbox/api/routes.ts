/** Endpoint id (src/contract/endpoints.ts) → handler. */
import type { EndpointId } from '../../contract/endpoints.js';
import type { Handler } from './context.js';
import { getProduct, listCategories, listProducts } from './handlers/catalog.js';
import { createPayout, listTransactions, listWallets } from './handlers/money.js';
import { cancelOrder, createOrder, getOrder, getOrderCodes, listOrders } from './handlers/orders.js';
import { getReconciliation } from './handlers/reconciliation.js';
import { deleteWebhook, getWebhook, registerWebhook } from './handlers/webhooks.js';

export const HANDLERS: Record<EndpointId, Handler> = {
  listCategories,
  listProducts,
  getProduct,
  createOrder,
  listOrders,
  getOrder,
  getOrderCodes,
  cancelOrder,
  listWallets,
  listTransactions,
  createPayout,
  registerWebhook,
  getWebhook,
  deleteWebhook,
  getReconciliation,
};
