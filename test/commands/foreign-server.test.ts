/**
 * A server that read the same API document and guessed otherwise than both our dialects:
 * lists under `items` without pagination, other field names, an order answered with an
 * empty body, errors as plain text and as a proxy's HTML page. Every 2xx exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const TRACE = 'a'.repeat(32);
let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': TRACE };
    const path = req.target.split('?')[0];
    if (req.method === 'GET' && path === '/api/v1/transactions') {
      return sendJson(
        res,
        200,
        {
          items: [
            { ref: 'T-1', value: 12.5, ccy: 'USD' },
            { ref: 'T-2', value: -3, ccy: 'USD' },
          ],
        },
        h,
      );
    }
    if (req.method === 'GET' && path === '/api/v1/wallets') return sendJson(res, 200, [{ currency: 'USD', balance: 100 }], h);
    if (req.method === 'POST' && path === '/api/v1/orders/ord_9/cancel') {
      res.writeHead(204, h);
      res.end();
      return;
    }
    if (req.method === 'POST' && path === '/api/v1/payouts')
      return sendJson(res, 201, { payout_id: 'po_1', status: 'PENDING', amount: 1, currency: 'USD', created_at: 1764010000 }, h);
    if (req.method === 'GET' && path === '/api/v1/categories')
      return sendJson(res, 200, [{ id: 'x', title: 'Red\u001b]0;pwned\u0007\u001b[31m text\u202e' }], h);
    if (req.method === 'POST' && path === '/api/v1/orders') {
      res.writeHead(201, h);
      res.end();
      return;
    }
    if (req.method === 'GET' && path === '/api/v1/products/down') {
      res.writeHead(502, { ...h, 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
      return;
    }
    if (req.method === 'GET' && path === '/api/v1/products/gone') {
      res.writeHead(404, { ...h, 'content-type': 'text/plain' });
      res.end('no such product\n');
      return;
    }
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a server of yet another dialect', () => {
  it('transactions list --all reads a list under "items" and says that its one answer is the whole list', async () => {
    const before = server.requests.length;
    const r = await cli(['transactions', 'list', '--all']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('T-1\t12.5\tUSD\nT-2\t-3\tUSD\n');
    expect(r.stderr).toContain(
      "--all: the server's list carries no has_more or next_cursor, so its one answer is all there is (2 transactions)",
    );
    expect(server.requests.length - before).toBe(1);
    expect(r.stderr.match(/^Warning: /gm)).toHaveLength(1);
  });

  it("a server's text that a terminal would act on is printed escaped, in tables and TSV", async () => {
    for (const argv of [
      ['categories', 'list'],
      ['categories', 'list', '--output', 'table'],
    ]) {
      const r = await cli(argv);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
      expect(r.stdout).toContain('Red\\u001b]0;pwned\\u0007\\u001b[31m text\\u202e');
    }
    // JSON output parses back to the data as sent; what a terminal acts on is \u-escaped in it.
    const json = await cli(['categories', 'list', '--json']);
    expect(json.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(JSON.parse(json.stdout)[0].title).toBe('Red\u001b]0;pwned\u0007\u001b[31m text\u202e');
  });

  it('times sent as epoch seconds are shown as times: a payout made is never a crash inviting a second one', async () => {
    const payout = await cli(['payouts', 'create', '--amount', '1.00', '--currency', 'USD', '--yes']);
    expect(payout.code, payout.stderr).toBe(0);
    expect(payout.stdout).toContain('payout_id\tpo_1');
    expect(payout.stdout).toContain('created_at\t2025-11-24 18:46:40Z');
    expect(payout.stderr).not.toContain('Unexpected error');
    // Wallets in milliseconds, transactions in seconds as digits.
    const epoch = await startLoopbackServer((req, res) =>
      req.target.startsWith('/api/v1/wallets')
        ? sendJson(res, 200, { data: [{ currency: 'USD', available: 100, reserved: 0, updated_at: 1764010000000 }] })
        : sendJson(res, 200, {
            data: [{ transaction_id: 'txn_1', type: 'TOP_UP', amount: 5, currency: 'USD', balance_after: 5, created_at: '1764010000' }],
            has_more: false,
            next_cursor: null,
          }),
    );
    try {
      const at = { ...env, VOUCHERS_BASE_URL: epoch.baseUrl };
      const wallets = await runCli(['wallets', 'list'], { env: at });
      expect(wallets.code, wallets.stderr).toBe(0);
      expect(wallets.stdout).toContain('2025-11-24 18:46:40Z');
      const txns = await runCli(['transactions', 'list'], { env: at });
      expect(txns.code, txns.stderr).toBe(0);
      expect(txns.stdout).toContain('2025-11-24 18:46:40Z');
    } finally {
      await epoch.close();
    }
  });

  it('a cancellation answered 204 is accepted, without claiming a refund the answer does not show', async () => {
    const r = await cli(['orders', 'cancel', 'ord_9', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Cancellation of order ord_9 accepted (HTTP 204, no status in the answer); see its status and refund with vouchers orders get ord_9',
    );
    expect(r.stderr).not.toContain('refunded to the');
  });

  it('--all follows pages a server numbers or links (Link rel="next", page/pages, next_page), every row once', async () => {
    const paging = await startLoopbackServer((req, res) => {
      const url = new URL(req.target, 'http://x');
      if (url.pathname === '/api/v1/transactions') {
        // Page numbers in the body.
        const page = Number(url.searchParams.get('page') ?? 1);
        return sendJson(res, 200, {
          results: [{ id: `txn-${page}`, amount: -1, currency: 'USD' }],
          page,
          pages: 3,
          next_page: page < 3 ? page + 1 : null,
        });
      }
      // A Link header whose URL carries the cursor, and keeps the filter.
      const after = url.searchParams.get('after');
      const next = after === null ? 'a1' : after === 'a1' ? 'a2' : null;
      const link: Record<string, string> = next
        ? { link: `<${url.pathname}?status=DELIVERED&after=${next}>; rel="next", </first>; rel="first"` }
        : {};
      return sendJson(res, 200, [{ order_id: `ord_${after ?? 'a0'}`, status: 'DELIVERED' }], link);
    });
    try {
      const at = { ...env, VOUCHERS_BASE_URL: paging.baseUrl };
      const txns = await runCli(['transactions', 'list', '--all', '--json'], { env: at });
      expect(txns.code, txns.stderr).toBe(0);
      expect((JSON.parse(txns.stdout) as { id: string }[]).map((t) => t.id)).toEqual(['txn-1', 'txn-2', 'txn-3']);
      expect(txns.stderr).not.toContain('its one answer is all there is');
      const orders = await runCli(['orders', 'list', '--all', '--status', 'DELIVERED', '--json'], { env: at });
      expect(orders.code, orders.stderr).toBe(0);
      expect((JSON.parse(orders.stdout) as { order_id: string }[]).map((o) => o.order_id)).toEqual(['ord_a0', 'ord_a1', 'ord_a2']);
      const asked = paging.requests.filter((r) => r.target.includes('/orders')).map((r) => r.target);
      expect(asked.slice(1)).toEqual(['/api/v1/orders?status=DELIVERED&after=a1', '/api/v1/orders?status=DELIVERED&after=a2']);
    } finally {
      await paging.close();
    }
  });

  it('a list inside a wrapper ({"data": {…}}, {"result": {…}}) with its paging beside it (pagination, meta): every page, every row once', async () => {
    const wrapped = await startLoopbackServer((req, res) => {
      const url = new URL(req.target, 'http://x');
      const page = Number(url.searchParams.get('cursor') ?? 1);
      const more = page < 3;
      if (url.pathname === '/api/v1/transactions')
        return sendJson(res, 200, {
          data: {
            transactions: [{ id: `txn-${page}`, amount: -1, currency: 'USD' }],
            pagination: { has_more: more, next_cursor: more ? String(page + 1) : null },
          },
        });
      return sendJson(res, 200, {
        result: { orders: [{ order_id: `ord_${page}`, status: 'DELIVERED' }], meta: { next: more ? String(page + 1) : null } },
      });
    });
    try {
      const at = { ...env, VOUCHERS_BASE_URL: wrapped.baseUrl };
      const txns = await runCli(['transactions', 'list', '--all', '--json'], { env: at });
      expect(txns.code, txns.stderr).toBe(0);
      expect((JSON.parse(txns.stdout) as { id: string }[]).map((t) => t.id)).toEqual(['txn-1', 'txn-2', 'txn-3']);
      const one = await runCli(['transactions', 'list'], { env: at });
      expect(one.code, one.stderr).toBe(0);
      expect(one.stderr).toContain('vouchers transactions list --cursor 2');
      const orders = await runCli(['orders', 'list', '--all', '--json'], { env: at });
      expect(orders.code, orders.stderr).toBe(0);
      expect((JSON.parse(orders.stdout) as { order_id: string }[]).map((o) => o.order_id)).toEqual(['ord_1', 'ord_2', 'ord_3']);
      expect(orders.stderr).toContain('the list is under \\"result.orders\\"');
      expect(orders.stderr).not.toContain('its one answer is all there is');
    } finally {
      await wrapped.close();
    }
  });

  it('a list that names its next page in a Link header is not called whole by its warning', async () => {
    const linked = await startLoopbackServer((req, res) => {
      const page = Number(new URL(req.target, 'http://x').searchParams.get('page') ?? 1);
      const link: Record<string, string> = page < 2 ? { link: '</api/v1/transactions?page=2>; rel="next"' } : {};
      return sendJson(res, 200, { data: [{ id: `txn-${page}`, amount: -1, currency: 'USD' }] }, link);
    });
    try {
      const at = { ...env, VOUCHERS_BASE_URL: linked.baseUrl };
      const one = await runCli(['transactions', 'list'], { env: at });
      expect(one.code, one.stderr).toBe(0);
      expect(one.stderr).toContain('answered in a shape that differs');
      expect(one.stderr).not.toContain('this answer is the whole list');
      expect(one.stderr).toContain('vouchers transactions list --all');
    } finally {
      await linked.close();
    }
  });

  it('--all and api --paginate follow a next link that is a path without a query, at that path (never its host)', async () => {
    const paging = await startLoopbackServer((req, res) => {
      const url = new URL(req.target, 'http://x');
      // REST-style paging: each page's path names the next; no cursor, no query.
      const m = /^\/api\/v1\/(transactions|orders)(?:\/page\/(\d+))?$/.exec(url.pathname);
      if (!m) return sendJson(res, 404, {});
      const page = Number(m[2] ?? 1);
      const next = page < 3 ? `/api/v1/${m[1]}/page/${page + 1}` : null;
      const row =
        m[1] === 'orders'
          ? { order_id: `ord_${page}`, status: 'DELIVERED' }
          : { transaction_id: `txn-${page}`, amount: -1, currency: 'USD' };
      // Orders name the next page with a full URL on the server's public host name.
      return sendJson(res, 200, { data: [row], links: { next: next && m[1] === 'orders' ? `https://public.example${next}` : next } });
    });
    try {
      const at = { ...env, VOUCHERS_BASE_URL: paging.baseUrl };
      const txns = await runCli(['transactions', 'list', '--all', '--limit', '1', '--json'], { env: at });
      expect(txns.code, txns.stderr).toBe(0);
      expect((JSON.parse(txns.stdout) as { transaction_id: string }[]).map((t) => t.transaction_id)).toEqual(['txn-1', 'txn-2', 'txn-3']);
      const followed = txns.stderr
        .split('\n')
        .filter((l) => l.includes('PAGES_FOLLOWED'))
        .map((l) => (JSON.parse(l) as { notice: { message: string } }).notice.message);
      expect(followed).toEqual([
        expect.stringContaining('followed "links.next" (a URL: its path and query, on the base URL) to each next page (3 pages)'),
      ]);
      const orders = await runCli(['orders', 'list', '--all', '--json'], { env: at });
      expect(orders.code, orders.stderr).toBe(0);
      expect((JSON.parse(orders.stdout) as { order_id: string }[]).map((o) => o.order_id)).toEqual(['ord_1', 'ord_2', 'ord_3']);
      const api = await runCli(['api', 'GET', '/transactions?limit=1', '--paginate', '--jmespath', 'data[0].transaction_id'], { env: at });
      expect(api.code, api.stderr).toBe(0);
      expect(api.stdout.trim().split('\n')).toEqual(['txn-1', 'txn-2', 'txn-3']);
      // Every page asked of the configured server, the command's filters kept.
      expect(paging.requests.map((r) => r.target)).toEqual([
        '/api/v1/transactions?limit=1',
        '/api/v1/transactions/page/2?limit=1',
        '/api/v1/transactions/page/3?limit=1',
        '/api/v1/orders',
        '/api/v1/orders/page/2',
        '/api/v1/orders/page/3',
        '/api/v1/transactions?limit=1',
        '/api/v1/transactions/page/2?limit=1',
        '/api/v1/transactions/page/3?limit=1',
      ]);
      // One page says more follow, and how to get them: no cursor to give, so --all.
      const one = await runCli(['transactions', 'list', '--limit', '1', '--output', 'csv'], { env: at });
      expect(one.code, one.stderr).toBe(0);
      expect(one.stderr).toContain('More transactions follow; the server names its next page with a link or page number, not a cursor');
      expect(one.stderr).toMatch(/\n {2}vouchers transactions list --limit 1 --output csv --all\n/);
    } finally {
      await paging.close();
    }
  });

  it('--all on a server whose next page is one it already gave (a cursor, a cycle, a Link) stops with exit 8, not a cut list with exit 0', async () => {
    const looping = await startLoopbackServer((req, res) => {
      const url = new URL(req.target, 'http://x');
      if (url.pathname === '/api/v1/transactions') {
        // The same cursor on every page.
        return sendJson(res, 200, {
          data: [{ transaction_id: `t-${url.searchParams.get('cursor') ?? 0}` }],
          has_more: true,
          next_cursor: 'same',
        });
      }
      // A cycle: a1 → a2 → a1 in a Link header.
      const after = url.searchParams.get('after');
      const next = after === 'a1' ? 'a2' : 'a1';
      return sendJson(res, 200, [{ order_id: `ord_${after ?? 'a0'}` }], { link: `<${url.pathname}?after=${next}>; rel="next"` });
    });
    try {
      const at = { ...env, VOUCHERS_BASE_URL: looping.baseUrl };
      const txns = await runCli(['transactions', 'list', '--all', '--output', 'ndjson'], { env: at });
      expect(txns.code, txns.stderr).toBe(8);
      expect(txns.stdout.trim().split('\n')).toHaveLength(2);
      expect(txns.stderr).toContain("the server's list names as its next page one it already gave: stopped after 2 pages to avoid a loop");
      expect(txns.stderr).toMatch(/quoting the trace ID [0-9a-f]{32}/);
      const orders = await runCli(['orders', 'list', '--all', '--output', 'ndjson'], { env: at });
      expect(orders.code, orders.stderr).toBe(8);
      expect(orders.stdout.trim().split('\n')).toHaveLength(3);
      expect(orders.stderr).toContain('stopped after 3 pages to avoid a loop');
      // Every format keeps the rows that came, a JSON array closed and whole.
      const txJson = await runCli(['transactions', 'list', '--all', '--json'], { env: at });
      expect(txJson.code).toBe(8);
      expect(JSON.parse(txJson.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { name: 'PagingLoop', code: 'PAGING_LOOP' } });
      expect(JSON.parse(txJson.stdout)).toHaveLength(2);
      const ordJson = await runCli(['orders', 'list', '--all', '--json'], { env: at });
      expect(ordJson.code).toBe(8);
      expect(JSON.parse(ordJson.stdout)).toHaveLength(3);
      const table = await runCli(['orders', 'list', '--all'], { env: at, tty: true, columns: 120 });
      expect(table.code).toBe(8);
      expect(table.stdout).toContain('ord_a2');
    } finally {
      await looping.close();
    }
  });

  it('a payout answered with another amount than asked: made (exit 0), with a loud warning naming both', async () => {
    const other = await startLoopbackServer((_req, res) =>
      sendJson(res, 201, { id: 'po-1', state: 'queued', amount: '10.00', currency: 'usd' }, { 'x-trace-id': TRACE }),
    );
    try {
      const at = { ...env, VOUCHERS_BASE_URL: other.baseUrl };
      const r = await runCli(['payouts', 'create', '--amount', '1.00', '--currency', 'USD', '--yes'], { env: at });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/Warning: the payout was made, but the answer says 10\.00 usd where 1\.00 USD was asked/);
      expect(r.stderr).toContain(`trace ID ${TRACE}`);
      const same = await runCli(['payouts', 'create', '--amount', '10.00', '--currency', 'USD', '--yes'], { env: at });
      expect(same.stderr).not.toContain('the payout was made, but');
    } finally {
      await other.close();
    }
  });

  it('wallets keyed by currency ({"USD": {…}}) are one wallet per key, the key as its currency', async () => {
    const keyed = await startLoopbackServer((_req, res) =>
      sendJson(res, 200, { USD: { balance: '1000.50', hold: '0' }, eur: { balance: 20 } }),
    );
    try {
      const r = await runCli(['wallets', 'list', '--json'], { env: { ...env, VOUCHERS_BASE_URL: keyed.baseUrl } });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([
        { currency: 'USD', balance: '1000.50', hold: '0' },
        { currency: 'eur', balance: 20 },
      ]);
      const table = await runCli(['wallets', 'list'], { env: { ...env, VOUCHERS_BASE_URL: keyed.baseUrl } });
      expect(table.stdout).toMatch(/^USD\t/m);
    } finally {
      await keyed.close();
    }
  });

  it('wallets keyed by currency one level down ({"balances": {"USD": {…}, "EUR": {…}}}) are one wallet per key, as a list is', async () => {
    const keyed = await startLoopbackServer((_req, res) =>
      sendJson(res, 200, { balances: { USD: { available: 100, reserved: 0 }, EUR: { available: 50.5, reserved: 1 } } }),
    );
    try {
      const at = { ...env, VOUCHERS_BASE_URL: keyed.baseUrl };
      const r = await runCli(['wallets', 'list', '--json'], { env: at });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([
        { currency: 'USD', available: 100, reserved: 0 },
        { currency: 'EUR', available: 50.5, reserved: 1 },
      ]);
      const table = await runCli(['wallets', 'list'], { env: at });
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^USD\t100\.00 USD\t0\.00 USD\t\nEUR\t50\.50 EUR\t1\.00 EUR\t\n$/);
    } finally {
      await keyed.close();
    }
    // One wallet that names its currency stays one, whatever map by currency it holds.
    const one = await startLoopbackServer((_req, res) =>
      sendJson(res, 200, { currency: 'USD', available: 100, reserved: 0, limits: { EUR: { max: 5 } } }),
    );
    try {
      const r = await runCli(['wallets', 'list', '--json'], { env: { ...env, VOUCHERS_BASE_URL: one.baseUrl } });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ currency: 'USD', available: 100, reserved: 0, limits: { EUR: { max: 5 } } }]);
    } finally {
      await one.close();
    }
  });

  it('wallets keyed by currency: the warning describes the wallets as read (one per key), never their currency as missing', async () => {
    const keyed = await startLoopbackServer((_req, res) =>
      sendJson(res, 200, { balances: { USD: { amount: 100 }, EUR: { amount: 5 } } }, { 'x-trace-id': TRACE }),
    );
    try {
      const at = { ...env, VOUCHERS_BASE_URL: keyed.baseUrl };
      const r = await runCli(['wallets', 'list'], { env: at });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('USD\t100\nEUR\t5\n');
      expect(r.stderr).toContain(
        'GET /wallets (listWallets) answered in a shape that differs from the contract this version of vouchers knows: the list is an object keyed by currency under "balances", not {"data": [...]}; available: missing (2 of 2 records); reserved: missing (2 of 2 records); updated_at: missing (2 of 2 records); fields the contract does not name: amount. Shown as received',
      );
      expect(r.stderr).not.toMatch(/currency: missing|no list in the body|this answer is the whole list/);
      const json = await runCli(['wallets', 'list', '--json'], { env: at });
      const warning = (JSON.parse(json.stderr.trim()) as { warning: { fields: string[] } }).warning;
      expect(warning.fields).not.toContain('currency');
      // At the top of the body, the same.
      const top = await startLoopbackServer((_req, res) =>
        sendJson(res, 200, { USD: { available: 100, reserved: 0, updated_at: '2026-03-01T10:00:00Z' } }),
      );
      try {
        const t = await runCli(['wallets', 'list'], { env: { ...env, VOUCHERS_BASE_URL: top.baseUrl } });
        expect(t.code, t.stderr).toBe(0);
        expect(t.stderr).toContain(
          'answered in a shape that differs from the contract this version of vouchers knows: the list is an object keyed by currency, not {"data": [...]}. Shown as received',
        );
      } finally {
        await top.close();
      }
    } finally {
      await keyed.close();
    }
  });

  it('wallets list reads a bare array and shows its own fields', async () => {
    const r = await cli(['wallets', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ currency: 'USD', balance: 100 }]);
  });

  it('an order answered 201 with an empty body is a success: exit 0, the idempotency key and trace ID shown', async () => {
    const r = await cli(['orders', 'create', '--product', 'p', '--denomination', '25']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Idempotency key: [0-9a-f-]{36}/);
    expect(r.stderr).toContain(TRACE);
    expect(r.stderr).toMatch(/an empty body; nothing could be read from it \[trace ID/);
    // Never a command that sends the order again to see its answer.
    expect(r.stderr).not.toContain('vouchers api --raw POST');
    expect(r.stderr).toContain('The server accepted the order (HTTP 201)');
    expect(r.stderr).toContain('names no order id, so it is not confirmed here. Treat it as placed: do not order again');
    expect(r.stderr).toMatch(/Look for it with vouchers .*orders list \(newest first\)/);
    const referenced = await cli(['orders', 'create', '--product', 'p', '--denomination', '25', '--reference', 'inv 42']);
    expect(referenced.code, referenced.stderr).toBe(0);
    expect(referenced.stderr).toMatch(/Look for it with vouchers .*orders list --reference 'inv 42', or ask your provider/);
    expect(r.stdout).toMatch(/^http_status\t201$/m);
    expect(r.stdout).toMatch(/^idempotency_key\t[0-9a-f-]{36}$/m);
    const json = await runCli(['orders', 'create', '--product', 'p', '--denomination', '25', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ http_status: 201, trace_id: TRACE, body: null });
  });

  it('--wait on an order answered 201 with an empty body: exit 8 (not DELIVERED), placed, not to be ordered again, with its key', async () => {
    const r = await cli(['orders', 'create', '--product', 'p', '--denomination', '25', '--wait', '--idempotency-key', 'wait-key-1']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('Error: the order was placed (HTTP 201), but its answer names no order id: it could not be followed.');
    expect(r.stderr).toContain('Do not order again; the same command with --idempotency-key wait-key-1 replays this answer');
    expect(r.stderr).toContain(TRACE);
    expect(r.stderr).not.toContain('Unexpected error');
    const json = await runCli(
      ['orders', 'create', '--product', 'p', '--denomination', '25', '--wait', '--idempotency-key', 'wait-key-2', '--json'],
      {
        env,
      },
    );
    expect(json.code, json.stderr).toBe(8);
    const error = json.stderr
      .split('\n')
      .filter((l) => l.startsWith('{"error"'))
      .map((l) => JSON.parse(l) as { idempotency_key?: string; trace_id?: string });
    expect(error).toEqual([expect.objectContaining({ idempotency_key: 'wait-key-2', trace_id: TRACE })]);
  });

  it("errors as a proxy's HTML or plain text keep their exit code, say what the server said, with the trace ID", async () => {
    const proxy = await cli(['products', 'get', 'down']);
    expect(proxy.code).toBe(7);
    expect(proxy.stderr).toContain('GET /products/down answered HTTP 502: 502 Bad Gateway');
    expect(proxy.stderr).toContain(TRACE);
    expect(proxy.stderr).not.toContain('<html>');
    const gone = await cli(['products', 'get', 'gone']);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('answered HTTP 404: no such product');
  });
});
