/**
 * Tables fit the terminal in display cells, at 60, 80 and 120 columns, with product names
 * in Japanese and with emoji in the catalog: no line of a list command's table is wider
 * than the terminal (measured with string-width: CJK and emoji 2 cells, combining marks 0),
 * free text is shortened first, and ids, amounts, statuses, times and the request path in
 * `vouchers log` are shown whole or left out (and said so on stderr), never cut; the log's
 * path, status and trace ID are never left out (too wide for a table, one block a row).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../src/contract/catalog.js';
import type { Transaction } from '../../src/contract/money.js';
import type { Order } from '../../src/contract/orders.js';
import type { RequestLogEntry } from '../../src/core/journal/types.js';
import { createClient } from '../../src/core/http/client.js';
import { fitsCutId, parseCutId } from '../../src/core/output/cut-id.js';
import { formatMoney, formatTime } from '../../src/core/output/format.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ANSI, tableHeader, tableRows, unwrapped } from '../helpers/cli-text.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, FAST_LIMITS } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

/** Names a terminal draws wider (CJK, emoji, a flag) or narrower (combining marks) than their characters. */
const WIDE_NAMES: Record<string, string> = {
  'sakura-books-jp': 'さくら書店 全国共通 図書カード ギフト券',
  'sakura-arcade-jp': 'サクラ・アーケード 🎮 ゲームセンター券',
  'northwind-store-us': 'Northwind 🎁 Store 🇺🇸 Gift Card',
  'lumen-cinemas-eu': 'Lumen Cine\u0301mas Europe 🎬 (e\u0301dition spe\u0301ciale)',
};

let sb: SandboxHandle;
let env: Record<string, string>;
let dir: string;
const configDir = tempConfigDir();

beforeAll(async () => {
  // The sandbox's catalog is seeded; a state file with other names is how it serves them.
  dir = mkdtempSync(join(tmpdir(), 'vouchers-table-width-'));
  const file = join(dir, 'state.json');
  const seeded = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, quiet: true, stateFile: file });
  await seeded.close();
  const state = JSON.parse(readFileSync(file, 'utf8')) as { products: Record<string, { name: string }> };
  for (const [id, name] of Object.entries(WIDE_NAMES)) state.products[id]!.name = name;
  writeFileSync(file, JSON.stringify(state));
  sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS, stateFile: file });
  env = envOf(sb);
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
  await client.request({
    method: 'POST',
    path: '/orders',
    body: {
      reference: 'ギフト 🎁 キャンペーン 2026 年末 お歳暮 配布分',
      items: [{ product_id: 'sakura-books-jp', denomination: 1000, quantity: 2 }],
    },
    idempotencyKey: 'tw-jp',
  });
  await client.request({
    method: 'POST',
    path: '/orders',
    body: {
      reference: 'a reference long enough to be shortened on any terminal here',
      items: [
        { product_id: 'sbx-instant', denomination: 25, quantity: 2 },
        { product_id: 'sbx-async', denomination: 50, quantity: 1 },
      ],
    },
    idempotencyKey: 'tw-usd',
  });
  await client.request({
    method: 'POST',
    path: '/orders',
    body: { items: [{ product_id: 'northwind-store-eu', denomination: 100, quantity: 1 }] },
    idempotencyKey: 'tw-eur',
  });
  // The asynchronous orders settle first, so a status cannot change between the two listings a test compares.
  await until(
    async () => {
      const { data } = await client.request<{ data: Order[] }>({ method: 'GET', path: '/orders' });
      return data.data.every((o) => !['PENDING', 'PROCESSING'].includes(o.status));
    },
    'the orders to settle',
    20_000,
  );
  await client.close();
  // Requests in the log: long paths that fail, and plain listings.
  expect((await runCli(['orders', 'get', 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'], { env, configDir })).code).toBe(4);
  expect((await runCli(['api', 'GET', '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/codes'], { env, configDir })).code).toBe(4);
  expect((await runCli(['products', 'list'], { env, configDir })).code).toBe(0);
});

afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

async function json<T>(argv: string[]): Promise<T> {
  const r = await runCli([...argv, '--json'], { env, configDir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** Runs on a terminal `columns` wide; every line of the table fits it, in display cells. */
async function onTerminal(
  argv: string[],
  columns: number,
): Promise<{ header: string[]; rows: string[][]; stderr: string; stdout: string }> {
  const r = await runCli(argv, { env, configDir, tty: true, columns });
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.replace(ANSI, '').trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(3);
  for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
  // A box whose lines are all as wide as its top rule: no cell pushed a border out of line.
  for (const line of lines) expect(stringWidth(line), line).toBe(stringWidth(lines[0]!));
  return { header: tableHeader(r.stdout), rows: tableRows(r.stdout), stderr: r.stderr, stdout: r.stdout };
}

/** A reference: whole, or cut in its middle (a start of it, "…", an end of it). */
function expectReferenceCutFrom(cell: string, full: string): void {
  if (cell === full) return;
  const cut = parseCutId(cell);
  expect(cut !== undefined && cut.head !== '' && cut.tail !== '' && fitsCutId(full, cut), `${cell} / ${full}`).toBe(true);
}

/** A cell of free text: the whole text, or a beginning of it ending in "…". */
function expectShortenedFrom(cell: string, full: string): void {
  if (cell === full) return;
  expect(cell.endsWith('…'), `${cell} / ${full}`).toBe(true);
  expect(full.startsWith(cell.slice(0, -1)), `${cell} / ${full}`).toBe(true);
}

/** Columns left out are named on stderr, each by its field. */
function expectLeftOutSaid(stderr: string, columns: number, fields: string[]): void {
  if (fields.length === 0) return;
  const line = unwrapped(stderr)
    .split('\n')
    .find((l) => l.startsWith(`Left out to fit ${columns} columns:`));
  expect(line, stderr).toBeDefined();
  for (const f of fields) expect(line).toContain(f);
}

describe.each([60, 80, 120])('at %i columns', (columns) => {
  it('products list: ids and currencies whole, denominations whole, cut after an amount or left out, names (CJK, emoji) shortened in cells', async () => {
    const products = await json<Product[]>(['products', 'list']);
    const t = await onTerminal(['products', 'list'], columns);
    expect(t.rows).toHaveLength(products.length);
    expect(t.header.slice(0, 2)).toEqual(['ID', expect.stringMatching(/^NAME|^NA|^N/)]);
    t.rows.forEach((cells, i) => {
      const p = products[i]!;
      expect(cells[t.header.indexOf('ID')]).toBe(p.product_id);
      expect(cells[t.header.indexOf('CURRENCY')]).toBe(p.currency);
      expectShortenedFrom(cells[1]!, p.name);
      if (t.header.includes('DENOMINATIONS')) {
        // Amounts: whole, or cut after a whole one ("5,10,15,…"), never inside one.
        const whole = p.denominations.join(',') + (p.denominations_truncated ? ',…' : '');
        const shown = cells[t.header.indexOf('DENOMINATIONS')]!;
        if (shown !== whole) expect(shown.endsWith(',…') && whole.startsWith(shown.slice(0, -1)), `${shown} / ${whole}`).toBe(true);
      }
    });
    expectLeftOutSaid(t.stderr, columns, t.header.includes('DENOMINATIONS') ? [] : ['denominations']);
    if (columns >= 80) expect(t.header).toContain('DENOMINATIONS');
    // The names stay readable at every width: the optional columns (the denominations last) are
    // shortened or go before a name is cut under 18 cells (a wide character may leave it one short).
    t.rows.forEach((cells, i) => expect(stringWidth(cells[1]!)).toBeGreaterThanOrEqual(Math.min(17, stringWidth(products[i]!.name))));
  });

  it('orders list: order id, status and total whole; the CJK reference shortened; the created time whole or left out', async () => {
    const orders = await json<Order[]>(['orders', 'list']);
    const t = await onTerminal(['orders', 'list'], columns);
    expect(t.header.slice(0, 3)).toEqual(['ORDER_ID', 'STATUS', 'TOTAL']);
    t.rows.forEach((cells, i) => {
      const o = orders[i]!;
      expect(cells[0]).toBe(o.order_id);
      expect(cells[1]).toBe(o.status);
      expect(cells[2]).toBe(formatMoney(o.total_amount, o.currency));
      if (t.header.includes('CREATED')) expect(cells[t.header.indexOf('CREATED')]).toBe(formatTime(o.created_at));
      const ref = t.header.findIndex((h) => h.startsWith('REFER'));
      if (ref >= 0) expectReferenceCutFrom(cells[ref]!, o.reference ?? '');
    });
    expectLeftOutSaid(t.stderr, columns, t.header.includes('CREATED') ? [] : ['created_at']);
    if (columns >= 120) expect(t.header).toContain('CREATED');
  });

  it('transactions list: time, type and amount whole', async () => {
    const txs = await json<Transaction[]>(['transactions', 'list']);
    const t = await onTerminal(['transactions', 'list'], columns);
    t.rows.forEach((cells, i) => {
      const x = txs[i]!;
      expect(cells[t.header.indexOf('TIME')]).toBe(formatTime(x.created_at));
      expect(cells[t.header.indexOf('TYPE')]).toBe(x.type);
      expect(cells[t.header.indexOf('AMOUNT')]).toBe(formatMoney(x.amount, x.currency));
      // A description is shown readable (16 cells, or whole) or left out, never cut to "Order …".
      const d = t.header.findIndex((h) => h.startsWith('DESCR'));
      if (d >= 0) expect(stringWidth(cells[d]!)).toBeGreaterThanOrEqual(Math.min(16, stringWidth(x.description ?? '')));
    });
    // The note names what is left out as --fields takes it, and its example brings back those fields.
    const note = unwrapped(t.stderr)
      .split('\n')
      .find((l) => l.startsWith(`Left out to fit ${columns} columns:`));
    if (!t.header.includes('ORDER/PAYOUT')) {
      expect(note, t.stderr).toBeDefined();
      const left = note!.slice(note!.indexOf(':') + 2, note!.indexOf('.')).split(', ');
      expect(left).toEqual(expect.arrayContaining(['order_id', 'payout_id']));
      expect(left).not.toContain('reference');
      const example = /--fields ([a-z_,]+)\)/.exec(note!)?.[1]?.split(',') ?? [];
      for (const f of example.slice(1)) expect(left, note).toContain(f);
    }
  });

  it('wallets and categories list fit', async () => {
    const w = await onTerminal(['wallets', 'list'], columns);
    expect(w.header).toEqual(expect.arrayContaining(['CURRENCY', 'AVAILABLE', 'RESERVED']));
    await onTerminal(['categories', 'list'], columns);
  });

  it('log and log --failed: the request path, status and trace id whole, in a table or one block a row', async () => {
    for (const argv of [['log'], ['log', '--failed']]) {
      const entries = await json<RequestLogEntry[]>(argv);
      expect(entries.some((e) => e.path === '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/codes')).toBe(true);
      // A 42-cell path, its status and a 32-cell trace id take 90 cells with their borders:
      // narrower, each request is a block of its fields, none of them cut.
      if (columns < 90) {
        const r = await runCli(argv, { env, configDir, tty: true, columns });
        expect(r.code, r.stderr).toBe(0);
        const text = r.stdout.replace(ANSI, '');
        for (const line of text.trimEnd().split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
        expect(r.stderr).toContain(`do not fit ${columns} columns: one block a row`);
        const blocks = text.trim().split('\n\n');
        expect(blocks).toHaveLength(entries.length);
        blocks.forEach((block, i) => {
          const e = entries[i]!;
          const field = (name: string) => new RegExp(`^${name} +(.*)$`, 'm').exec(block)?.[1];
          expect(field('path')).toBe(e.path);
          expect(field('status')).toBe(String(e.status ?? '-'));
          expect(field('trace_id')).toBe(e.trace_id);
        });
        continue;
      }
      const t = await onTerminal(argv, columns);
      expect(t.header).toEqual(expect.arrayContaining(['PATH', 'STATUS', 'TRACE ID']));
      t.rows.forEach((cells, i) => {
        const e = entries[i]!;
        expect(cells[t.header.indexOf('PATH')]).toBe(e.path);
        expect(cells[t.header.indexOf('STATUS')]).toBe(String(e.status ?? '-'));
        expect(cells[t.header.indexOf('TRACE ID')]).toBe(e.trace_id);
      });
      expectLeftOutSaid(t.stderr, columns, t.header.includes('TRY') ? [] : ['attempt']);
      expect(t.stdout).not.toContain('/orde…');
    }
  });
});
