/**
 * Issue 11 point 5: a resume after the server's 24 h idempotency window. A row whose answer
 * was lost is never re-sent blindly once its key may be forgotten: it is looked up by
 * reference first (GET /orders?reference=) and the order found is recorded; without a
 * reference, or without that endpoint, the row is not re-sent and the message says what to
 * check. The sandbox clock is moved 25 h on (admin clock advance), and so is the CLI's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { run as runBulk } from '../../src/commands/orders/bulk.js';
import type { ApiClient, RequestOptions } from '../../src/core/http/types.js';
import { createFactory, type Clock, type Factory } from '../../src/factory.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { orderCount, profileDir, quickClock, usdAvailableMinor } from './orders-helpers.js';

const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 }, max_retries: 2 };
const DAY_AND_HOUR_S = 25 * 3600;

async function advanceSandbox(sb: SandboxHandle, seconds: number): Promise<void> {
  const res = await fetch(`${sb.adminUrl}/clock/advance`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ seconds }),
  });
  await res.text();
  expect(res.status).toBe(200);
}

/** A quick clock `offsetS` seconds ahead. */
function clockAhead(offsetS: number): Clock {
  const q = quickClock();
  return { now: () => q.now() + offsetS * 1000, sleep: q.sleep };
}

interface Run {
  error: unknown;
  stdout: string;
  stderr: string;
  posts: string[];
  lookups: string[];
}

/**
 * One bulk run through the library, with requests the test shapes: `lose` maps a reference to
 * the fault its POST meets once, with no retry (its answer is lost); `noLookup` makes
 * GET /orders a route the server does not have.
 */
async function bulk(
  dir: string,
  args: { from?: string; resume?: string },
  clock: Clock,
  shape: { lose?: Record<string, 'drop_after_commit' | 'server_error'>; noLookup?: boolean; interruptAt?: number } = {},
): Promise<Run> {
  const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
  const base = createFactory(io, () => ({}), { clock });
  const posts: string[] = [];
  const lookups: string[] = [];
  const f: Factory = {
    ...base,
    client: async () => {
      const c = await base.client();
      const wrapped: ApiClient = {
        request: (o: RequestOptions) => {
          if (o.method === 'GET' && o.path === '/orders') {
            lookups.push(String((o.query as Record<string, unknown> | undefined)?.reference));
            if (shape.noLookup) return c.request({ ...o, path: '/no-such-route' });
          }
          if (o.method !== 'POST' || o.path !== '/orders') return c.request(o);
          const ref = (o.body as { reference?: string }).reference ?? '';
          // Ctrl-C as this POST is handed over: it never leaves (not counted as sent).
          if (posts.length + 1 === shape.interruptAt) {
            io.interrupt();
            return c.request(o);
          }
          posts.push(ref);
          const fault = shape.lose?.[ref];
          if (!fault) return c.request(o);
          return c.request({ ...o, maxRetries: 0, headers: { ...o.headers, 'X-Sandbox-Simulate': fault } });
        },
        close: () => c.close(),
      };
      return wrapped;
    },
  };
  let error: unknown;
  try {
    await runBulk(f, { ...args, concurrency: '1', json: true });
  } catch (e) {
    error = e;
  } finally {
    await base.dispose();
  }
  return { error, stdout: io.stdoutText(), stderr: io.stderrText(), posts, lookups };
}

function csv(rows: string[]): string {
  const file = join(tempConfigDir(), 'orders.csv');
  writeFileSync(file, ['product_id,denomination,quantity,reference,currency', ...rows].join('\n') + '\n');
  return file;
}

describe("bulk: a resume after the server's 24 h idempotency window (issue 11 point 5)", () => {
  it('8 rows, 3 answers lost (2 committed, 1 not): 25 h later the committed ones are found by reference, not re-sent; the other is ordered once', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(Array.from({ length: 8 }, (_, i) => `sbx-instant,10,1,win-${i},USD`));
    const lose = { 'win-2': 'drop_after_commit', 'win-5': 'drop_after_commit', 'win-6': 'server_error' } as const;
    const first = await bulk(dir, { from: file }, quickClock(), { lose });
    expect(String(first.error)).toMatch(/3 of 8 rows are unknown/);
    expect(orderCount(sb)).toBe(7);

    await advanceSandbox(sb, DAY_AND_HOUR_S);
    const later = await bulk(dir, { from: file }, clockAhead(DAY_AND_HOUR_S));
    expect(later.error, later.stderr).toBeUndefined();
    expect(later.lookups.sort()).toEqual(['win-2', 'win-5', 'win-6']);
    // Only the row the server never committed is sent again.
    expect(later.posts).toEqual(['win-6']);
    expect(JSON.parse(later.stdout)).toMatchObject({ ordered: 8, failed: 0, unknown: 0 });
    const refs = Object.values(sb.state.orders).map((o) => o.reference);
    expect(refs.length).toBe(8);
    expect(new Set(refs).size).toBe(8);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 8 * 10 * 100);
  });

  it('a row of the partial product whose answer was lost, found by reference 25 h later PARTIALLY_DELIVERED: named with its vouchers, exit 5, the totals what the wallet paid', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-instant,10,1,part-0,USD', 'sbx-partial,25,4,part-1,USD']);
    const first = await bulk(dir, { from: file }, quickClock(), { lose: { 'part-1': 'drop_after_commit' } });
    expect(String(first.error)).toMatch(/1 of 2 rows is unknown/);

    // Meanwhile the sandbox fulfils it: half its vouchers fail, their part is refunded.
    await advanceSandbox(sb, DAY_AND_HOUR_S);
    const later = await bulk(dir, { from: file }, clockAhead(DAY_AND_HOUR_S));
    expect(later.lookups).toEqual(['part-1']);
    expect(later.posts).toEqual([]);
    expect((later.error as { code?: string }).code).toBe('ORDER_PARTIALLY_DELIVERED');
    expect(String(later.error)).toMatch(
      /1 of 2 rows was answered PARTIALLY_DELIVERED: line 3 \(reference part-1, order ord_\w+, 2 of 4 vouchers issued\)/,
    );
    expect(later.stderr).toMatch(/line 3: order ord_\w+ answered PARTIALLY_DELIVERED: 2 of 4 vouchers issued, the failed part refunded/);
    const summary = JSON.parse(later.stdout) as { totals: { currency: string; total_amount: number }[] };
    expect(summary).toMatchObject({ ordered: 2, partially_delivered: 1, partially_delivered_vouchers: { issued: 2, ordered: 4 } });
    // What the batch cost is what left the wallet: 10, and 100 less the 50 refunded.
    expect(summary.totals).toEqual([{ currency: 'USD', orders: 2, total_amount: 60 }]);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 60 * 100);
  });

  it('without the GET /orders?reference= endpoint, or without a reference: the row is not re-sent and the message says what to check', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-instant,10,1,nolook-0,USD', 'sbx-instant,10,1,,USD', 'sbx-instant,10,1,nolook-2,USD']);
    // The row without a reference is the second: its body has no reference, keyed '' here.
    const first = await bulk(dir, { from: file }, quickClock(), { lose: { 'nolook-0': 'drop_after_commit', '': 'drop_after_commit' } });
    expect(String(first.error)).toMatch(/2 of 3 rows are unknown/);
    expect(orderCount(sb)).toBe(3);

    await advanceSandbox(sb, DAY_AND_HOUR_S);
    const later = await bulk(dir, { from: file }, clockAhead(DAY_AND_HOUR_S), { noLookup: true });
    expect(later.posts).toEqual([]);
    expect(orderCount(sb)).toBe(3);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 3 * 10 * 100);
    expect(String(later.error)).toMatch(
      /2 of 3 rows were not re-sent: their answers were lost and the server's 24 h idempotency window has passed/,
    );
    expect(later.stderr).toMatch(
      /line 2: unknown, not re-sent: .*not re-sent \(it could order twice\); the order may exist: check `vouchers orders list --reference nolook-0` or ask the provider \(GET \/orders\?reference= answered 404/,
    );
    expect(later.stderr).toMatch(
      /line 3: unknown, not re-sent: .*older than the server's 24 h idempotency window.*the row has no reference to look it up by/,
    );
    expect(JSON.parse(later.stdout)).toMatchObject({ ordered: 1, unknown: 2 });

    // Every later resume holds them back the same way.
    const again = await bulk(dir, { from: file }, clockAhead(DAY_AND_HOUR_S), { noLookup: true });
    expect(again.posts).toEqual([]);
    expect(orderCount(sb)).toBe(3);
  });

  it('a row of unknown outcome edited in the file (within the window): looked up by reference, not re-sent under its old key', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-instant,10,1,chg-0,USD', 'sbx-instant,10,1,chg-1,USD', 'sbx-instant,10,1,chg-2,USD']);
    const first = await bulk(dir, { from: file }, quickClock(), { lose: { 'chg-1': 'drop_after_commit' } });
    expect(String(first.error)).toMatch(/1 of 3 rows is unknown/);
    writeFileSync(
      file,
      'product_id,denomination,quantity,reference,currency\nsbx-instant,10,1,chg-0,USD\nsbx-instant,25,1,chg-1,USD\nsbx-instant,10,1,chg-2,USD\n',
    );
    const edited = await bulk(dir, { from: file }, quickClock());
    expect(edited.error, edited.stderr).toBeUndefined();
    expect(edited.lookups).toEqual(['chg-1']);
    expect(edited.posts).toEqual([]);
    expect(orderCount(sb)).toBe(3);
    // The order placed before the edit stands: an ordered row is not ordered again.
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 3 * 10 * 100);
  });

  it('rows keyed ahead by a run stopped with Ctrl-C stay "not sent" through a second stopped run, and 25 h later are ordered once each (no reference needed)', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    // No references: a row of unknown outcome could not be looked up after 24 h.
    const file = csv(Array.from({ length: 12 }, () => 'sbx-instant,10,1,,USD'));
    // One at a time: rows 1-2 ordered, the third POST stopped before it left, rows 4-6 keyed ahead.
    const first = await bulk(dir, { from: file }, quickClock(), { interruptAt: 3 });
    expect(String(first.error)).toMatch(/interrupted/);
    expect(first.posts).toHaveLength(2);
    expect(orderCount(sb)).toBe(2);
    expect(JSON.parse(first.stdout)).toMatchObject({ ordered: 2, unknown: 0, not_done: 10 });

    // A resume stopped before its first request left: nothing was sent, so nothing is unknown.
    const second = await bulk(dir, { from: file }, quickClock(), { interruptAt: 1 });
    expect(String(second.error)).toMatch(/interrupted/);
    expect(second.posts).toEqual([]);
    expect(JSON.parse(second.stdout)).toMatchObject({ ordered: 2, unknown: 0, not_done: 10 });
    expect(second.stderr).not.toMatch(/sent without an answer/);

    // A day later their first keys are past the server's window, but no request used them: each row gets a new key.
    await advanceSandbox(sb, DAY_AND_HOUR_S);
    const later = await bulk(dir, { from: file }, clockAhead(DAY_AND_HOUR_S));
    expect(later.error, later.stderr).toBeUndefined();
    expect(later.stderr).not.toContain('NOT_RESENT');
    expect(later.posts).toHaveLength(10);
    expect(JSON.parse(later.stdout)).toMatchObject({ ordered: 12, failed: 0, unknown: 0 });
    expect(orderCount(sb)).toBe(12);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 12 * 10 * 100);
  });
});
