/**
 * `orders create --from FILE --wait` (and `--resume BATCH_ID --wait`): once every row was
 * sent, the orders the server accepted PENDING are followed to a final status (GET
 * /orders/{id}) and each row is counted by it: delivered, partly delivered less its refund,
 * cancelled and refunded. The statuses are journalled, so --results, the summary and every
 * later run know them; a later run with --wait follows the rows an earlier run left pending;
 * at the wait's end the run exits 8 as `orders wait` does; Ctrl-C while following leaves a
 * journal a resume completes without ordering anything again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { run as runBulk } from '../../src/commands/orders/bulk.js';
import type { CreateFlags } from '../../src/commands/orders/index.js';
import { CliError } from '../../src/core/errors/index.js';
import type { ApiClient, RequestOptions } from '../../src/core/http/types.js';
import { createFactory, type Factory } from '../../src/factory.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { startLoopbackServer, sendJson } from '../helpers/loopback-server.js';
import { BULK_FAKE_PRODUCT } from '../helpers/bulk-fake.js';
import { contractOrder } from '../helpers/contract-order.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { orderCount, profileDir, quickClock, usdAvailableMinor } from './orders-helpers.js';

const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 } };

interface Run {
  error: unknown;
  stdout: string;
  stderr: string;
  posts: number;
  follows: number;
}

/** One bulk run through the library; `interruptAtFollow`: Ctrl-C as the n-th GET /orders/{id} is handed over. */
async function bulk(dir: string, flags: Partial<CreateFlags>, shape: { interruptAtFollow?: number; tty?: boolean } = {}): Promise<Run> {
  const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' }, tty: shape.tty });
  const base = createFactory(io, () => ({}), { clock: quickClock() });
  let posts = 0;
  let follows = 0;
  const f: Factory = {
    ...base,
    client: async () => {
      const c = await base.client();
      const wrapped: ApiClient = {
        ...c,
        request: (o: RequestOptions) => {
          if (o.method === 'POST' && o.path === '/orders') posts += 1;
          if (o.method === 'GET' && o.path.startsWith('/orders/')) {
            follows += 1;
            if (follows === shape.interruptAtFollow) io.interrupt();
          }
          return c.request(o);
        },
      };
      return wrapped;
    },
  };
  let error: unknown;
  try {
    await runBulk(f, { json: true, ...flags } as CreateFlags);
  } catch (e) {
    error = e;
  } finally {
    await base.dispose();
  }
  return { error, stdout: io.stdoutText(), stderr: io.stderrText(), posts, follows };
}

function csv(rows: string[]): string {
  const file = join(tempConfigDir(), 'orders.csv');
  writeFileSync(file, ['product_id,denomination,quantity,reference', ...rows].join('\n') + '\n');
  return file;
}

async function approve(sb: SandboxHandle, orderId: string): Promise<void> {
  const res = await fetch(`${sb.adminUrl}/orders/${orderId}/approve`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  await res.text();
  expect(res.status).toBe(200);
}

const summaryOf = (r: Run) => JSON.parse(r.stdout) as Record<string, unknown> & { pending_rows: { order_id: string }[] };
const codeOf = (e: unknown) => (e instanceof CliError ? `${e.kind} ${e.code}` : String(e));

describe('bulk --wait', () => {
  it('follows the rows answered PENDING to their final statuses: counted by them, totals less refunds, exit 5; --results and a re-run know them', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const start = usdAvailableMinor(sb);
    const file = csv(['sbx-partial,25,4,w-1', 'sbx-vendor-fail,10,1,w-2', 'sbx-instant,10,1,w-3', 'sbx-async,10,1,w-4']);
    const results = join(tempConfigDir(), 'results.csv');
    const first = await bulk(dir, { from: file, wait: true, results });
    expect(codeOf(first.error)).toBe('rejected ORDER_NOT_FULFILLED');
    expect(first.posts).toBe(4);
    const summary = summaryOf(first);
    expect(summary).toMatchObject({
      ordered: 4,
      delivered: 2,
      pending: 0,
      pending_rows: [],
      not_fulfilled: 1,
      not_fulfilled_rows: [{ row: 3, reference: 'w-2', status: 'REFUNDED' }],
      partially_delivered: 1,
      partially_delivered_rows: [{ row: 2, reference: 'w-1', status: 'PARTIALLY_DELIVERED', vouchers_issued: 2, vouchers_ordered: 4 }],
      // 100 less the 50 refunded, 10 and 10; the refunded 10 not at all.
      totals: [{ currency: 'USD', orders: 3, total_amount: 70 }],
      pending_totals: [],
    });
    // What the wallet paid, once the refunds came.
    expect(start - usdAvailableMinor(sb)).toBe(7_000);
    // Each said as it ends.
    expect(first.stderr).toMatch(/line 2: order ord_\w+ ended PARTIALLY_DELIVERED: 2 of 4 vouchers issued, the failed part refunded/);
    expect(first.stderr).toMatch(/line 3: order ord_\w+ ended REFUNDED: no voucher issued/);
    expect(readFileSync(results, 'utf8').trim().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^2,ord_\w+,PARTIALLY_DELIVERED,[0-9a-f]{32},"ORDER_PARTIALLY_DELIVERED: .*2 of 4 vouchers issued/),
      expect.stringMatching(/^3,ord_\w+,REFUNDED,[0-9a-f]{32},ORDER_NOT_FULFILLED: /),
      expect.stringMatching(/^4,ord_\w+,DELIVERED,[0-9a-f]{32},$/),
      expect.stringMatching(/^5,ord_\w+,DELIVERED,[0-9a-f]{32},$/),
    ]);

    // The same file again, without --wait: nothing sent or followed; the final statuses are the journal's.
    const again = await bulk(dir, { from: file });
    expect(codeOf(again.error)).toBe('rejected ORDER_NOT_FULFILLED');
    expect([again.posts, again.follows]).toEqual([0, 0]);
    expect(summaryOf(again)).toMatchObject({ delivered: 2, pending: 0, totals: [{ currency: 'USD', orders: 3, total_amount: 70 }] });
    expect(orderCount(sb)).toBe(4);
  });

  it('--results says a followed row was answered PENDING and followed until it ended, not that it was answered so; in the run that ordered it or a later one', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-vendor-fail,10,1,f-1', 'sbx-gated,10,1,f-2', 'sbx-instant,10,1,f-3']);
    const results = join(tempConfigDir(), 'results.csv');
    const lines = () => readFileSync(results, 'utf8').trim().split('\n').slice(1);
    const first = await bulk(dir, { from: file, wait: true, waitTimeout: '1m', results });
    expect(codeOf(first.error)).toBe('rejected ORDER_NOT_FULFILLED');
    expect(lines()).toEqual([
      expect.stringMatching(
        /^2,ord_\w+,REFUNDED,[0-9a-f]{32},ORDER_NOT_FULFILLED: the order was placed and answered PENDING; followed until it ended REFUNDED: no voucher was issued; it is not ordered again$/,
      ),
      expect.stringMatching(/^3,ord_\w+,PENDING,[0-9a-f]{32},$/),
      expect.stringMatching(/^4,ord_\w+,DELIVERED,[0-9a-f]{32},$/),
    ]);

    await fetch(`${sb.adminUrl}/orders/${summaryOf(first).pending_rows[0]!.order_id}/reject`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
      body: '{}',
    }).then((r) => r.text());
    const later = await bulk(dir, { from: file, wait: true, results });
    expect(codeOf(later.error)).toBe('rejected ORDER_NOT_FULFILLED');
    expect(later.posts).toBe(0);
    expect(lines()[1]).toMatch(
      /^3,ord_\w+,REFUNDED,[0-9a-f]{32},ORDER_NOT_FULFILLED: the order was placed and answered PENDING; followed until it ended REFUNDED: no voucher was issued; it is not ordered again$/,
    );
    expect(orderCount(sb)).toBe(3);
  });

  it('the summary and the error say rows followed to their end were answered PENDING and followed until they ended, as --results does', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-gated,10,1,g-1', 'sbx-gated,10,1,g-2', 'sbx-instant,10,1,g-3']);
    const first = await bulk(dir, { from: file, wait: true, waitTimeout: '1m' });
    const summary = summaryOf(first);
    expect(summary.pending_rows).toHaveLength(2);
    for (const row of summary.pending_rows) {
      await fetch(`${sb.adminUrl}/orders/${row.order_id}/reject`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
        body: '{}',
      }).then((r) => r.text());
    }
    const resumed = await bulk(dir, { resume: summary.batch_id as string, wait: true, json: undefined });
    expect(codeOf(resumed.error)).toBe('rejected ORDER_NOT_FULFILLED');
    expect(resumed.posts).toBe(0);
    expect(resumed.stdout + resumed.stderr).toMatch(
      /not_fulfilled\s+2 \(ordered, answered PENDING and followed until they ended REFUNDED: no voucher issued\)/,
    );
    expect(resumed.stdout + resumed.stderr).not.toMatch(/answered REFUNDED/);
    expect((resumed.error as Error).message).toMatch(
      /^2 of 3 rows were answered PENDING and followed until they ended REFUNDED: line 2 \(reference g-1, order ord_\w+, REFUNDED\), line 3 /,
    );
  });

  it('on a terminal, a progress line says how many of the orders followed are final; none on a pipe or with --json', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-async,10,1,p-1', 'sbx-instant,10,1,p-2', 'sbx-async,10,1,p-3']);
    const shown = await bulk(dir, { from: file, wait: true, json: undefined }, { tty: true });
    expect(shown.error, shown.stderr).toBeUndefined();
    expect(shown.stderr).toContain('following 2 pending orders: 0 final, 2 pending, 0s');
    expect(shown.stderr).toMatch(/following 2 pending orders: 2 final, 0 pending, [\dhm]+s\r\x1b\[2K/);
    for (const [name, tty, json] of [
      ['piped', false, undefined],
      ['json', true, true],
    ] as const) {
      const quiet = await bulk(dir, { from: csv([`sbx-async,10,1,${name}-1`, `sbx-instant,10,1,${name}-2`]), wait: true, json }, { tty });
      expect(quiet.error, quiet.stderr).toBeUndefined();
      expect(quiet.follows).toBeGreaterThan(0);
      expect(quiet.stderr).not.toContain('pending order');
      expect(quiet.stderr).not.toContain('\x1b');
    }
    expect(orderCount(sb)).toBe(7);
  });

  it('a resume with --wait follows the rows an earlier run left pending (its journal of the previous version too); exit 8 at the wait end, 0 once delivered', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-gated,25,1,g-1', 'sbx-instant,10,1,g-2', 'sbx-gated,10,2,g-3']);
    const first = await bulk(dir, { from: file });
    expect(first.error).toBeUndefined();
    const summary = summaryOf(first);
    expect(summary).toMatchObject({ delivered: 1, pending: 2, pending_totals: [{ currency: 'USD', orders: 2, total_amount: 45 }] });
    const batch = String(summary.batch_id);
    // As the previous version wrote it: the answers of rows not final carry neither the quantity nor the reference.
    const journal = String(summary.journal);
    writeFileSync(
      journal,
      readFileSync(journal, 'utf8')
        .split('\n')
        .map((l) => (l.includes('"PENDING"') ? JSON.stringify({ ...JSON.parse(l), vouchers_ordered: undefined, reference: undefined }) : l))
        .join('\n'),
    );

    // Still held at the gate: followed until the wait ends, then exit 8.
    const held = await bulk(dir, { resume: batch, wait: true, waitTimeout: '1m' });
    expect(codeOf(held.error)).toBe('pending STILL_PENDING');
    expect(String((held.error as Error).message)).toContain('2 of 3 rows are ordered and still pending after 1m');
    expect(held.posts).toBe(0);
    expect(summaryOf(held)).toMatchObject({ pending: 2 });

    for (const row of summary.pending_rows) await approve(sb, row.order_id);
    const done = await bulk(dir, { resume: batch, wait: true });
    expect(done.error, done.stderr).toBeUndefined();
    expect(done.posts).toBe(0);
    expect(summaryOf(done)).toMatchObject({
      delivered: 3,
      pending: 0,
      totals: [{ currency: 'USD', orders: 3, total_amount: 55 }],
      pending_totals: [],
    });
    expect(orderCount(sb)).toBe(3);

    // A batch of one row says it of that row, not "1 of 1 rows … their vouchers".
    const one = await bulk(dir, { from: csv(['sbx-gated,25,1,g-one']), wait: true, waitTimeout: '1m' });
    expect(codeOf(one.error)).toBe('pending STILL_PENDING');
    expect(String((one.error as Error).message)).toBe(
      'the row is ordered and still pending after 1m (not final yet: its vouchers, or a refund, are to come)',
    );
  });

  it('Ctrl-C while following: the summary and how to follow again, exit 130; the resume orders nothing again and follows them to the end', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-gated,25,1,c-1', 'sbx-gated,10,1,c-2', 'sbx-instant,10,1,c-3']);
    const stopped = await bulk(dir, { from: file, wait: true, concurrency: '1' }, { interruptAtFollow: 1 });
    expect(codeOf(stopped.error)).toBe('interrupted INTERRUPTED');
    expect(String((stopped.error as CliError).hint)).toMatch(/vouchers orders create --resume bat_\w+ --wait/);
    expect(stopped.posts).toBe(3);
    const summary = summaryOf(stopped);
    expect(summary).toMatchObject({ ordered: 3, delivered: 1, pending: 2 });

    for (const row of summary.pending_rows) await approve(sb, row.order_id);
    const resumed = await bulk(dir, { from: file, wait: true });
    expect(resumed.error, resumed.stderr).toBeUndefined();
    expect(resumed.posts).toBe(0);
    expect(summaryOf(resumed)).toMatchObject({ ordered: 3, delivered: 3, pending: 0 });
    expect(orderCount(sb)).toBe(3);
  });

  it('an order that ends CANCELLED and stays so (no REFUNDED after it) is counted then, not followed until the wait ends: the rows after it are followed too', async () => {
    const order = (id: string, status: string) =>
      contractOrder({ order_id: id, status, items: [{ product_id: 'p', denomination: 25, quantity: 1 }], fulfilled_from: null });
    const server = await startLoopbackServer((req, res) => {
      const path = req.target.split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/api/v1/orders') {
        const { reference } = JSON.parse(req.body) as { reference: string };
        return sendJson(res, 202, order(`ord_${reference}`, 'PENDING'));
      }
      const id = /^\/api\/v1\/orders\/(ord_[\w-]+)$/.exec(path)?.[1];
      if (req.method === 'GET' && id) return sendJson(res, 200, order(id, id === 'ord_k-2' ? 'DELIVERED' : 'CANCELLED'));
      if (path === '/api/v1/products') return sendJson(res, 200, { data: [BULK_FAKE_PRODUCT] });
      if (path === '/api/v1/products/p') return sendJson(res, 200, BULK_FAKE_PRODUCT);
      if (path === '/api/v1/wallets') return sendJson(res, 200, { data: [{ currency: 'USD', available: 1000 }] });
      return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } });
    });
    try {
      const dir = tempConfigDir();
      const env = { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's', NO_COLOR: '1' };
      const file = csv(['p,25,1,k-1', 'p,25,1,k-2', 'p,25,1,k-3']);
      const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, ...env } });
      const f = createFactory(io, () => ({}), { clock: quickClock() });
      let error: unknown;
      try {
        await runBulk(f, { from: file, wait: true, concurrency: '1', json: true } as CreateFlags);
      } catch (e) {
        error = e;
      } finally {
        await f.dispose();
      }
      expect(codeOf(error)).toBe('rejected ORDER_NOT_FULFILLED');
      expect(JSON.parse(io.stdoutText())).toMatchObject({
        delivered: 1,
        pending: 0,
        not_fulfilled: 2,
        not_fulfilled_rows: [
          { row: 2, status: 'CANCELLED' },
          { row: 4, status: 'CANCELLED' },
        ],
        totals: [{ currency: 'USD', orders: 1, total_amount: 25 }],
      });
      // One GET each: a CANCELLED order is not asked for again.
      expect(server.requests.filter((r) => r.method === 'GET' && r.target.startsWith('/api/v1/orders/'))).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
