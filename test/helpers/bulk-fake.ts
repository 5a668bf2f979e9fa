/**
 * A loopback server for bulk runs against answers the sandbox does not give: one product
 * `p` (USD, 25), a USD wallet, and POST /orders answered by the test from each row's
 * reference. Everything else is a 404.
 */
import { afterAll, beforeAll } from 'vitest';
import { sendJson, startLoopbackServer, type LoopbackServer } from './loopback-server.js';

/** Only the document's fields: it differs from the contract's product record. */
export const BULK_FAKE_PRODUCT = { product_id: 'p', name: 'P', vendor: 'v', currency: 'USD', denominations: [25] };

export interface BulkFake {
  server: LoopbackServer;
  /** The POST /orders requests received so far. */
  posts(): LoopbackServer['requests'];
}

/**
 * Start one. `order(reference)` gives the status and body of the answer to the row with that
 * reference; every answer carries the trace ID `traceId`.
 */
export interface BulkFakeOptions {
  traceId: string;
  /** The USD wallet's available balance. */
  available: number;
  order: (reference: string) => [status: number, body: unknown];
}

export async function startBulkFake(options: BulkFakeOptions): Promise<BulkFake> {
  const h = { 'x-trace-id': options.traceId };
  const server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') {
      const { reference } = JSON.parse(req.body) as { reference: string };
      return sendJson(res, ...options.order(reference), h);
    }
    if (path === '/api/v1/products') return sendJson(res, 200, { data: [BULK_FAKE_PRODUCT] }, h);
    if (path === '/api/v1/products/p') return sendJson(res, 200, BULK_FAKE_PRODUCT, h);
    if (path === '/api/v1/wallets') return sendJson(res, 200, { data: [{ currency: 'USD', available: options.available }] }, h);
    return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } }, h);
  });
  return { server, posts: () => server.requests.filter((r) => r.method === 'POST' && r.target === '/api/v1/orders') };
}

/** One for the test file: started before its tests, closed after them. */
export function useBulkFake(options: BulkFakeOptions): BulkFake {
  let fake: BulkFake | undefined;
  beforeAll(async () => {
    fake = await startBulkFake(options);
  });
  afterAll(() => fake?.server.close());
  const started = (): BulkFake => {
    if (!fake) throw new Error('the bulk fake is not started yet: use it inside a test');
    return fake;
  };
  return {
    get server() {
      return started().server;
    },
    posts: () => started().posts(),
  };
}
