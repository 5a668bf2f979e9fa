/**
 * List output of `orders list` and `sandbox admin orders list`: the next-page hint is the
 * full command (every filter and output flag repeated), and following it walks exactly the
 * filtered rows; on a narrow terminal the order id, status, total and created time stay
 * whole while the other columns are shortened or left out, and stderr says which.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/contract/orders.js';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { fitsCutId, parseCutId } from '../../src/core/output/cut-id.js';
import { formatMoney, formatTime } from '../../src/core/output/format.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf, fastSandbox, profileDir, localProfileDir } from '../helpers/sandbox.js';
import { ANSI, hintLine, hintArgv, pageNotice, tableRows, tableHeader, unwrapped } from '../helpers/cli-text.js';
import { until } from '../helpers/until.js';

let sb: SandboxHandle;
let env: Record<string, string>;
let client: ApiClient;
/** A profile with the admin URL and token, for `sandbox admin`. */
let adminDir: string;
/** The UTC day the orders were created on (the sandbox's clock). */
let day: string;

const REF = 'batch 7';
const LONG_REF = 'a long reference that a narrow table has to shorten';

let seq = 0;
async function order(product: string, quantity = 1, reference?: string): Promise<Order> {
  const res = await client.request<Order>({
    method: 'POST',
    path: '/orders',
    body: { items: [{ product_id: product, denomination: 10, quantity }], ...(reference !== undefined ? { reference } : {}) },
    idempotencyKey: `orders-list-output-${seq++}`,
  });
  return res.data;
}

async function listJson(argv: string[]): Promise<Order[]> {
  const r = await runCli(['orders', 'list', ...argv, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Order[];
}

beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
  adminDir = await localProfileDir(sb);
  client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
  // The filtered selection: 5 delivered orders referenced "batch 7" …
  const first = await order('sbx-instant', 1, REF);
  day = first.created_at.slice(0, 10);
  for (let i = 0; i < 4; i++) await order('sbx-instant', 1, REF);
  // … and orders each filter has to leave out: another reference, a pending one of the same
  // reference (held at the admin gate), one refunded, one without a reference, a large one.
  await order('sbx-instant', 1, 'other');
  await order('sbx-gated', 1, REF);
  await order('sbx-gated', 2);
  await order('sbx-gated', 1);
  await order('sbx-vendor-fail', 1, LONG_REF);
  await order('sbx-instant', 100);
  // Wait until fulfilment has settled: every instant order delivered, the failing one refunded.
  await until(
    async () => {
      const all = await listJson(['--limit', '200']);
      return (
        all.every((o) => o.status === 'DELIVERED' || o.status === 'REFUNDED' || o.status === 'PENDING') &&
        all.filter((o) => o.status === 'DELIVERED').length === 7 &&
        all.some((o) => o.status === 'REFUNDED')
      );
    },
    'fulfilment to settle',
    10_000,
  );
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('orders list: the next-page hint', () => {
  it('repeats every filter, so following the hints walks exactly the filtered rows', async () => {
    const first = await runCli(
      ['orders', 'list', '--status', 'delivered', '--reference', REF, '--from', day, '--to', day, '--limit', '2', '--json'],
      { env },
    );
    expect(first.code, first.stderr).toBe(0);
    // With --json the hint is one JSON line, as every notice then is, with the cursor on its own.
    // The status as the API takes it, the reference quoted for the shell, the old cursor gone.
    expect(first.stderr.trim().split('\n')).toHaveLength(1);
    const notice = pageNotice(first.stderr)!;
    expect(notice.message).toBe('More orders (or every page: --all instead of --cursor)');
    expect(notice.command).toBe(
      `vouchers orders list --status DELIVERED --reference 'batch 7' --from ${day} --to ${day} --limit 2 --json --cursor ${notice.next_cursor}`,
    );
    const walked = JSON.parse(first.stdout) as Order[];
    expect(walked).toHaveLength(2);
    let next = first;
    let pages = 1;
    while (next.stderr.includes('--cursor')) {
      const argv = hintArgv(next.stderr);
      expect(argv.filter((w) => w === '--cursor')).toHaveLength(1);
      next = await runCli(argv, { env });
      expect(next.code, next.stderr).toBe(0);
      walked.push(...(JSON.parse(next.stdout) as Order[]));
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(next.stderr).not.toMatch(/More orders/);
    const all = await listJson(['--status', 'DELIVERED', '--reference', REF]);
    expect(all).toHaveLength(5);
    expect(walked.map((o) => o.order_id)).toEqual(all.map((o) => o.order_id));
    expect(walked.every((o) => o.status === 'DELIVERED' && o.reference === REF && o.created_at.startsWith(day))).toBe(true);
  });

  it('repeats the output flags and the global --profile: the next page comes in the same format', async () => {
    const dir = await profileDir(sb, 'ci');
    const first = await runCli(
      ['--profile', 'ci', 'orders', 'list', '--reference', REF, '--limit', '4', '--output', 'csv', '--fields', 'order_id,status'],
      { configDir: dir },
    );
    expect(first.code, first.stderr).toBe(0);
    const argv = hintArgv(first.stderr);
    expect(argv.slice(0, 4)).toEqual(['--profile', 'ci', 'orders', 'list']);
    expect(argv).toEqual(expect.arrayContaining(['--reference', REF, '--limit', '4', '--output', 'csv', '--fields', 'order_id,status']));
    const second = await runCli(argv, { configDir: dir });
    expect(second.code, second.stderr).toBe(0);
    const [header, ...rows] = second.stdout.trim().split('\n');
    expect(header).toBe('order_id,status');
    // 6 orders are referenced "batch 7": 4 on the first page, 2 on this last one.
    expect(rows).toHaveLength(2);
    expect(second.stderr).not.toContain('--cursor');
    const all = await listJson(['--reference', REF]);
    const firstRows = first.stdout.trim().split('\n').slice(1);
    expect([...firstRows, ...rows]).toEqual(all.map((o) => `${o.order_id},${o.status}`));
  });

  it('piped TSV pages carry the hint too, with no output flag to repeat', async () => {
    const r = await runCli(['orders', 'list', '--limit', '1'], { env });
    expect(r.code).toBe(0);
    const argv = hintArgv(r.stderr);
    expect(argv.slice(0, -1)).toEqual(['orders', 'list', '--limit', '1', '--cursor']);
    const next = await runCli(argv, { env });
    expect(next.code).toBe(0);
    expect(next.stdout.trim().split('\n')).toHaveLength(1);
    expect(next.stdout.split('\t')[0]).not.toBe(r.stdout.split('\t')[0]);
  });
});

describe('sandbox admin orders list: the next-page hint', () => {
  const admin = (argv: string[]) => runCli(['sandbox', 'admin', 'orders', 'list', ...argv], { configDir: adminDir });

  it('repeats every filter and output flag; following it walks exactly the filtered rows', async () => {
    const first = await admin(['--status', 'pending', '--gate', 'held', '--partner', 'ptn_default', '--limit', '1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const notice = pageNotice(first.stderr)!;
    expect(notice.message).toBe('More orders');
    expect(notice.command).toBe(
      `vouchers sandbox admin orders list --status PENDING --gate held --partner ptn_default --limit 1 --json --cursor ${notice.next_cursor}`,
    );
    // This verb has no --all: the hint does not offer it.
    expect(notice.command).not.toContain('--all');
    // Without JSON output, the same hint is text: the heading, then the command on a line of its own.
    const text = await admin(['--status', 'pending', '--gate', 'held', '--partner', 'ptn_default', '--limit', '1', '--output', 'csv']);
    expect(hintLine(text.stderr)).toMatch(
      /^More orders:\n {2}vouchers sandbox admin orders list --status PENDING --gate held --partner ptn_default --limit 1 --output csv --cursor \S+$/,
    );
    const walked = JSON.parse(first.stdout) as { order_id: string; status: string; gate: string | null }[];
    let next = first;
    while (next.stderr.includes('--cursor')) {
      const argv = hintArgv(next.stderr);
      expect(argv.slice(0, 4)).toEqual(['sandbox', 'admin', 'orders', 'list']);
      next = await runCli(argv, { configDir: adminDir });
      expect(next.code, next.stderr).toBe(0);
      walked.push(...(JSON.parse(next.stdout) as typeof walked));
    }
    const all = JSON.parse((await admin(['--gate', 'held', '--json'])).stdout) as typeof walked;
    expect(all).toHaveLength(3);
    expect(walked.map((o) => o.order_id)).toEqual(all.map((o) => o.order_id));
    expect(walked.every((o) => o.status === 'PENDING' && o.gate === 'held')).toBe(true);
  });

  it('a CSV page leads to a CSV page with the same fields', async () => {
    const first = await admin(['--gate', 'held', '--limit', '2', '--output', 'csv', '--fields', 'order_id,gate']);
    expect(first.code, first.stderr).toBe(0);
    const argv = hintArgv(first.stderr);
    expect(argv).toEqual(expect.arrayContaining(['--gate', 'held', '--limit', '2', '--output', 'csv', '--fields', 'order_id,gate']));
    const next = await runCli(argv, { configDir: adminDir });
    expect(next.code, next.stderr).toBe(0);
    const [header, ...rows] = next.stdout.trim().split('\n');
    expect(header).toBe('order_id,gate');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^ord_\w+,held$/);
  });
});

describe('orders list on a narrow terminal', () => {
  /** The order id, status and total of every row are shown whole, and the created time when it is shown. */
  function expectEssentialsWhole(stdout: string, orders: Order[]): string[] {
    const header = tableHeader(stdout);
    expect(header).toEqual(expect.arrayContaining(['ORDER_ID', 'STATUS', 'TOTAL']));
    const rows = tableRows(stdout);
    expect(rows).toHaveLength(orders.length);
    rows.forEach((cells, i) => {
      const o = orders[i]!;
      expect(cells[header.indexOf('ORDER_ID')]).toBe(o.order_id);
      expect(cells[header.indexOf('STATUS')]).toBe(o.status);
      expect(cells[header.indexOf('TOTAL')]).toBe(formatMoney(o.total_amount, o.currency));
      if (header.includes('CREATED')) expect(cells[header.indexOf('CREATED')]).toBe(formatTime(o.created_at));
      // A shortened column has its header shortened too (REFER…).
      const refAt = header.findIndex((h) => h.startsWith('REFER'));
      if (refAt >= 0) {
        const shown = cells[refAt]!;
        const ref = o.reference ?? '';
        // Cut in its middle: a start of it, "…", an end of it (references of a file differ at their end).
        const cut = parseCutId(shown);
        expect(shown === ref || (cut !== undefined && cut.head !== '' && cut.tail !== '' && fitsCutId(ref, cut)), shown).toBe(true);
      }
    });
    return header;
  }

  it('at 100 columns: it fits; the reference is shortened to a readable width, the voucher count and FROM left out and said so', async () => {
    const orders = await listJson([]);
    expect(orders.length).toBe(11);
    const r = await runCli(['orders', 'list'], { env, tty: true, columns: 100 });
    expect(r.code).toBe(0);
    for (const line of r.stdout.replace(ANSI, '').trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(100);
    const header = expectEssentialsWhole(r.stdout, orders);
    // A partner tells orders apart by their reference: it is not cut to a stub to keep FROM.
    expect(header).toEqual(['ORDER_ID', 'STATUS', 'TOTAL', 'REFERENCE', 'CREATED']);
    expect(r.stdout).toContain('a long…shorten');
    expect(r.stdout).not.toContain(LONG_REF);
    expect(unwrapped(r.stderr)).toContain('Left out to fit 100 columns: vouchers, fulfilled_from. Show them beside order_id with --fields');
  });

  it('at 80 columns: order id, status, total and created time, the rest left out and said so', async () => {
    const pending = await listJson(['--status', 'PENDING']);
    expect(pending).toHaveLength(3);
    const r = await runCli(['orders', 'list', '--status', 'PENDING'], { env, tty: true, columns: 80 });
    expect(r.code).toBe(0);
    for (const line of r.stdout.replace(ANSI, '').trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(expectEssentialsWhole(r.stdout, pending)).toEqual(['ORDER_ID', 'STATUS', 'TOTAL', 'CREATED']);
    expect(unwrapped(r.stderr)).toContain(
      'Left out to fit 80 columns: vouchers, reference, fulfilled_from. Show them beside order_id with --fields',
    );
    expect(r.stderr).toContain('--output json');
  });

  it('at 80 columns, when those four are wider than the terminal, the created time is left out too rather than a line wrapped', async () => {
    // DELIVERED and 1000.00 USD: 30 (id) + 9 + 11 + 20 (time) + 13 (borders) = 83 cells.
    // Ids, statuses, amounts and times are never cut: the time goes (said so), what fits comes back.
    const orders = await listJson([]);
    const r = await runCli(['orders', 'list'], { env, tty: true, columns: 80 });
    expect(r.code).toBe(0);
    for (const line of r.stdout.replace(ANSI, '').trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    const header = expectEssentialsWhole(r.stdout, orders);
    expect(header.slice(0, 3)).toEqual(['ORDER_ID', 'STATUS', 'TOTAL']);
    expect(header).not.toContain('CREATED');
    expect(r.stderr).toMatch(/Left out to fit 80 columns: [a-z_, ]*created_at\./);
  });

  it('at a width where everything fits, nothing is left out; --fields columns are never left out', async () => {
    const wide = await runCli(['orders', 'list'], { env, tty: true, columns: 200 });
    expect(tableHeader(wide.stdout)).toEqual(['ORDER_ID', 'STATUS', 'TOTAL', 'VOUCHERS', 'REFERENCE', 'FROM', 'CREATED']);
    expect(wide.stdout).toContain(LONG_REF);
    expect(wide.stderr).not.toMatch(/left out/i);
    const picked = await runCli(['orders', 'list', '--fields', 'order_id,vouchers,fulfilled_from'], { env, tty: true, columns: 60 });
    expect(tableHeader(picked.stdout)).toEqual(['ORDER_ID', 'VOUCHERS', 'FROM']);
    expect(picked.stderr).not.toMatch(/left out/i);
  });
});

describe('orders list --all on a terminal', () => {
  it('shows a spinner while the pages come, not a progress line the table is drawn after, and ends with a count', async () => {
    const all = await listJson(['--limit', '200']);
    const r = await runCli(['orders', 'list', '--all', '--limit', '4'], { env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    const pages = Math.ceil(all.length / 4);
    // The count ends stderr (the spinner's own clearing of its line is ora's, on a real terminal).
    expect(r.stderr).toMatch(new RegExp(`${all.length} orders in ${pages} pages\n$`));
    expect(r.stderr).not.toMatch(/fetched \d+ pages…$/);
    expect(tableRows(r.stdout)).toHaveLength(all.length);
  });
});
