/**
 * The sandbox as `vouchers sandbox start` runs it (same app, same node:http server settings,
 * one log line per request written to stderr, as it writes them), rate limits lifted, wallet funded for the
 * benchmark. With a first argument N it first places N cache-hit orders in process, through
 * the same handler and idempotency store as POST /orders (so the state holds what N real
 * requests leave: orders, vouchers, events, transactions, idempotency records).
 * Prints `{"port","apiKey","apiSecret","adminToken","orders"}` on stdout once it listens.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const dist = (p) => import(join(root, 'dist', p));
const { createSandboxApp } = await dist('sandbox/index.js');
const { HANDLERS } = await dist('sandbox/api/routes.js');
const { IdempotencyStore, bodyHash } = await dist('sandbox/api/idempotency.js');
const { post } = await dist('sandbox/domain/ledger.js');
const { batchedOutput } = await dist('core/io/batched-output.js');

const fill = Number(process.argv[2] ?? 0);
const output = batchedOutput();
const app = createSandboxApp({
  seed: 1,
  limits: { ordersPerMinute: 1_000_000, generalPerHour: 1_000_000 },
  // As `vouchers sandbox start` writes them: queued, once per turn of the event loop.
  log: (line) => output.write(process.stderr, `${new Date().toISOString().slice(11, 19)} ${line}\n`),
});
const rt = app.runtime();
const { apiKey, apiSecret, partnerId } = app.credentials;
const partner = rt.state.partners[partnerId];
// Enough money for every order the benchmark places (10 USD each), as POST /admin/wallets/fund posts it.
post(rt, partner, { type: 'TOP_UP', amount_minor: 10_000_000_000, currency: 'USD', description: 'Sandbox top-up by the operator' });

if (fill > 0) {
  const key = rt.state.keys[apiKey];
  const store = new IdempotencyStore(() => rt);
  for (let i = 0; i < fill; i++) {
    const raw = Buffer.from(
      JSON.stringify({ items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], reference: `fill-${i}` }),
    );
    const body = JSON.parse(raw.toString());
    const scope = IdempotencyStore.scope(apiKey, 'POST', '/api/v1/orders', `fill-${i}`);
    const hash = bodyHash(raw);
    store.begin(scope, hash);
    const reply = HANDLERS.createOrder({ rt, partner, key, params: {}, query: {}, body, traceId: `fill-${i}`, remoteAddress: '127.0.0.1' });
    if (reply.status !== 201) throw new Error(`fill order ${i} answered ${reply.status}: ${reply.body}`);
    store.finish(scope, hash, reply, true);
  }
}

const server = createServer(app.listener);
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  app.start();
  process.stdout.write(
    JSON.stringify({
      port: server.address().port,
      apiKey,
      apiSecret,
      adminToken: app.credentials.adminToken,
      orders: Object.keys(rt.state.orders).length,
    }) + '\n',
  );
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  void app.close().then(() => process.exit(0));
});
