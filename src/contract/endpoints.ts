/**
 * The endpoint table: every route of routes.ts with its parameters and its request and
 * response schemas. The sandbox routes from it, the client validates responses with it,
 * and the OpenAPI document is generated from it.
 */
import * as z from 'zod';
import { Category, Product, ProductDetail } from './catalog.js';
import { Country, Currency, DateOnly, listEnvelope, OrderId, PAGE_LIMIT } from './common.js';
import { CreateOrderRequest, Order, OrderCodes, OrderStatus } from './orders.js';
import { CreatePayoutRequest, Payout, Transaction, TransactionType, Wallet } from './money.js';
import { ReconciliationReport } from './reconciliation.js';
import { matchRoute, ROUTES, type Route, type RouteId } from './routes.js';
import { RegisterWebhookRequest, WebhookEndpoint } from './webhooks.js';

export { expandPath, type HttpMethod, type RateClass } from './routes.js';

interface EndpointSchemas {
  pathParams?: Record<string, z.ZodType>;
  query?: Record<string, z.ZodType>;
  request?: z.ZodType;
  /** Success responses by status. `null` = no body. */
  responses: Record<number, z.ZodType | null>;
}

export interface Endpoint extends Route, EndpointSchemas {}

const limit = z.coerce
  .number()
  .int()
  .min(PAGE_LIMIT.min)
  .max(PAGE_LIMIT.max)
  .meta({ description: `Page size ${PAGE_LIMIT.min}–${PAGE_LIMIT.max}, default ${PAGE_LIMIT.default}` });
const cursor = z.string().min(1).meta({ description: 'Opaque cursor from next_cursor' });

const SCHEMAS: Record<RouteId, EndpointSchemas> = {
  listCategories: { query: { limit, cursor }, responses: { 200: listEnvelope(Category) } },
  listProducts: {
    query: { currency: Currency, country: Country, category_id: z.string(), limit, cursor },
    responses: { 200: listEnvelope(Product) },
  },
  getProduct: { pathParams: { product_id: z.string() }, responses: { 200: ProductDetail } },
  createOrder: { request: CreateOrderRequest, responses: { 201: Order, 202: Order } },
  listOrders: {
    query: { status: OrderStatus, reference: z.string(), created_from: DateOnly, created_to: DateOnly, limit, cursor },
    responses: { 200: listEnvelope(Order) },
  },
  getOrder: { pathParams: { order_id: OrderId }, responses: { 200: Order } },
  getOrderCodes: { pathParams: { order_id: OrderId }, responses: { 200: OrderCodes } },
  cancelOrder: { pathParams: { order_id: OrderId }, responses: { 200: Order } },
  listWallets: { responses: { 200: listEnvelope(Wallet) } },
  listTransactions: {
    query: { from: DateOnly, to: DateOnly, order_id: OrderId, type: TransactionType, limit, cursor },
    responses: { 200: listEnvelope(Transaction) },
  },
  createPayout: { request: CreatePayoutRequest, responses: { 201: Payout } },
  registerWebhook: { request: RegisterWebhookRequest, responses: { 200: WebhookEndpoint, 201: WebhookEndpoint } },
  getWebhook: { responses: { 200: WebhookEndpoint } },
  deleteWebhook: { responses: { 204: null } },
  getReconciliation: { pathParams: { date: DateOnly }, responses: { 200: ReconciliationReport } },
};

export const ENDPOINTS: readonly Endpoint[] = ROUTES.map((r) => ({ ...r, errors: [...r.errors], ...SCHEMAS[r.id] }));

export type EndpointId = RouteId;

export function endpoint(id: EndpointId): Endpoint {
  const found = ENDPOINTS.find((e) => e.id === id);
  if (!found) throw new Error(`unknown endpoint ${id}`);
  return found;
}

/** Find the endpoint a concrete method and path (relative to the base URL, no query) belong to. */
export function matchEndpoint(
  method: string,
  path: string,
): { endpoint: Endpoint; params: Record<string, string> } | { methodNotAllowed: true } | undefined {
  const m = matchRoute(ENDPOINTS, method, path);
  return m && 'route' in m ? { endpoint: m.route, params: m.params } : m;
}
