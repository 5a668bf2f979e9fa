/**
 * Every other table the CLI prints fits the terminal in display cells at 60, 80 and 120
 * columns, with Japanese and emoji text in the catalog, references, partners and drifts:
 * voucher lists (orders codes, orders get), reconciliation, profiles, the sandbox admin
 * lists and the certify checklist. No line is wider than the terminal, every box is
 * straight, ids are shown whole, and a column left out is named on stderr.
 * (Products, orders, transactions, wallets, categories and log: table-width.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ANSI, unwrapped } from '../helpers/cli-text.js';
import { runCli } from '../helpers/run-cli.js';
import { FAST_LIMITS, localProfileDir } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let dir: string;
let configDir: string;
const orderIds: string[] = [];
const today = new Date().toISOString().slice(0, 10);

const cli = (argv: string[], options: { columns?: number } = {}) =>
  runCli(argv, { configDir, ...(options.columns ? { tty: true, columns: options.columns } : {}) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vouchers-table-width-all-'));
  const file = join(dir, 'state.json');
  const seeded = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, quiet: true, stateFile: file });
  await seeded.close();
  const state = JSON.parse(readFileSync(file, 'utf8')) as { products: Record<string, { name: string }> };
  state.products['sakura-books-jp']!.name = 'さくら書店 全国共通 図書カード ギフト券';
  state.products['northwind-store-us']!.name = 'Northwind 🎁 Store 🇺🇸 Gift Card';
  writeFileSync(file, JSON.stringify(state));
  sb = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    seed: 1,
    timeScale: 0.01,
    quiet: true,
    limits: FAST_LIMITS,
    stateFile: file,
    enablePlanned: true,
  });
  configDir = await localProfileDir(sb);
  for (const argv of [
    [
      '--product',
      'sakura-books-jp',
      '--denomination',
      '1000',
      '--quantity',
      '2',
      '--reference',
      'ギフト 🎁 キャンペーン 2026 年末 お歳暮 配布分',
    ],
    [
      '--item',
      'sbx-instant:25:2',
      '--item',
      'northwind-store-us:25:1',
      '--reference',
      'a reference long enough to be shortened on any terminal here',
    ],
  ]) {
    const r = await cli(['orders', 'create', ...argv, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    orderIds.push((JSON.parse(r.stdout) as { order_id: string }).order_id);
  }
  const drift = await cli([
    'sandbox',
    'admin',
    'drifts',
    'create',
    '--order',
    orderIds[0]!,
    '--vendor-record',
    'ベンダー記録: 図書カード 1000円 ×2 配送済み 🎁 確認待ち',
  ]);
  expect(drift.code, drift.stderr).toBe(0);
  const partner = await cli([
    'sandbox',
    'admin',
    'partners',
    'create',
    '--name',
    '株式会社さくらギフト 🎁 パートナー 東京本社 営業部',
    '--wallet',
    'JPY=100000',
  ]);
  expect(partner.code, partner.stderr).toBe(0);
  // A code access with its trace id, for `sandbox admin code-accesses`.
  expect((await cli(['orders', 'codes', orderIds[0]!])).code).toBe(0);
});

afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Box {
  header: string[];
  rows: string[][];
}

/** The box tables of a command's stdout on a terminal `columns` wide, each checked to fit it. */
async function boxesOn(argv: string[], columns: number): Promise<{ boxes: Box[]; stderr: string }> {
  const r = await cli(argv, { columns });
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.replace(ANSI, '').split('\n');
  const boxes: Box[] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    if (line.startsWith('┌')) current = [];
    if (current) {
      current.push(line);
      expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
      expect(stringWidth(line), line).toBe(stringWidth(current[0]!));
    }
    if (line.startsWith('└') && current) {
      const cells = (l: string) =>
        l
          .split('│')
          .slice(1, -1)
          .map((c) => c.trim());
      boxes.push({ header: cells(current[1]!), rows: current.slice(3, -1).map(cells) });
      current = undefined;
    }
  }
  expect(boxes.length, r.stdout).toBeGreaterThan(0);
  return { boxes, stderr: r.stderr };
}

async function jsonOf<T>(argv: string[]): Promise<T> {
  const r = await cli([...argv, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** The ids of `key` in a JSON list are the cells of column `header`, whole, row for row. */
function expectIdsWhole(box: Box, header: string, ids: string[]): void {
  const at = box.header.indexOf(header);
  expect(at, box.header.join(' | ')).toBeGreaterThanOrEqual(0);
  expect(box.rows.map((r) => r[at])).toEqual(ids);
}

/** When a column is missing, its field is named on stderr. */
function expectLeftOutSaid(box: Box, stderr: string, columns: number, fields: Record<string, string>): void {
  // A shortened column keeps the beginning of its header ("VENDOR R…").
  const shows = (header: string) => box.header.some((h) => h === header || (h.endsWith('…') && header.startsWith(h.slice(0, -1))));
  const missing = Object.entries(fields)
    .filter(([header]) => !shows(header))
    .map(([, field]) => field);
  if (missing.length === 0) return;
  const line = unwrapped(stderr)
    .split('\n')
    .find((l) => l.startsWith(`Left out to fit ${columns} columns:`));
  expect(line, stderr).toBeDefined();
  for (const f of missing) expect(line).toContain(f);
}

describe.each([60, 80, 120])('at %i columns', (columns) => {
  it('orders codes and orders get: voucher ids and masked codes whole, the rest whole or left out and said', async () => {
    for (const id of orderIds) {
      const codes = await jsonOf<{ data: { voucher_id: string }[] } | { voucher_id: string }[]>(['orders', 'codes', id]);
      const list = Array.isArray(codes) ? codes : codes.data;
      const {
        boxes: [box],
        stderr,
      } = await boxesOn(['orders', 'codes', id], columns);
      expectIdsWhole(
        box!,
        'VOUCHER_ID',
        list.map((v) => v.voucher_id),
      );
      expect(box!.rows.every((r) => /^•+\w{4}$/.test(r[box!.header.indexOf('CODE')]!))).toBe(true);
      expectLeftOutSaid(box!, stderr, columns, { PRODUCT: 'product_id', DENOMINATION: 'denomination', EXPIRY: 'expiry', PIN: 'pin' });
      if (columns >= 120) expect(box!.header).toEqual(expect.arrayContaining(['PRODUCT', 'DENOMINATION', 'EXPIRY']));
      const got = await boxesOn(['orders', 'get', id], columns);
      const vouchers = got.boxes.find((b) => b.header.includes('VOUCHER_ID'))!;
      expectIdsWhole(
        vouchers,
        'VOUCHER_ID',
        list.map((v) => v.voucher_id),
      );
      // orders get has neither --fields for its sections nor --output: the note offers --json.
      const notes = unwrapped(got.stderr)
        .split('\n')
        .filter((l) => l.startsWith('Left out to fit'));
      if (columns === 60) expect(notes.length, got.stderr).toBeGreaterThan(0);
      for (const note of notes) expect(note).toMatch(/\. Every field, with --json\.$/);
    }
  });

  it('reconciliation get: ids (order, vendor, product, our voucher) whole, the Japanese vendor record masked whole or left out', async () => {
    const report = await jsonOf<{ drifts: { order_id: string; vendor: string; product_id: string; our_allocation: string }[] }>([
      'reconciliation',
      'get',
      today,
    ]);
    const { boxes, stderr } = await boxesOn(['reconciliation', 'get', today], columns);
    const drifts = boxes.find((b) => b.header.includes('ORDER'))!;
    expect(drifts.rows.map((r) => r[0])).toContain(orderIds[0]);
    expect(drifts.header).toContain('RESOLUTION');
    // The ids are whole wherever their column is shown: never "vch_01M8…" or "sandbox-…".
    const ids: Record<string, 'order_id' | 'vendor' | 'product_id' | 'our_allocation'> = {
      ORDER: 'order_id',
      VENDOR: 'vendor',
      PRODUCT: 'product_id',
      'OUR ALLOCATION': 'our_allocation',
    };
    for (const [header, field] of Object.entries(ids)) {
      if (drifts.header.includes(header))
        expectIdsWhole(
          drifts,
          header,
          report.drifts.map((d) => d[field]),
        );
    }
    expectLeftOutSaid(drifts, stderr, columns, {
      VENDOR: 'vendor',
      PRODUCT: 'product_id',
      'OUR ALLOCATION': 'our_allocation',
      'VENDOR RECORD': 'vendor_record',
      DETECTED: 'detected_at',
    });
    if (columns >= 120) expect(drifts.header).toEqual(expect.arrayContaining(['ORDER', 'OUR ALLOCATION', 'RESOLUTION']));
  });

  it('profiles list and profiles show: the base URL whole, in a table, one block a profile or one line a setting', async () => {
    for (const argv of [
      ['profiles', 'list'],
      ['profiles', 'show'],
      ['profiles', 'show', 'local'],
    ]) {
      const r = await cli(argv, { columns });
      expect(r.code, r.stderr).toBe(0);
      const text = r.stdout.replace(ANSI, '');
      for (const line of text.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
      expect(text, argv.join(' ')).toContain(sb.baseUrl);
      if (text.includes('┌')) {
        const {
          boxes: [box],
        } = await boxesOn(argv, columns);
        if (argv[1] === 'show') expect(box!.header).toEqual(['SETTING', 'VALUE', 'SOURCE']);
      } else if (argv[1] === 'list') {
        expect(r.stderr).toContain(`do not fit ${columns} columns: one block a row`);
      } else {
        // One line a setting, its source in brackets, the value wrapping under the value column.
        expect(text).toMatch(new RegExp(`^base_url +${sb.baseUrl.replace(/[.]/g, '\\.')}(  \\(profile\\))?$`, 'm'));
        expect(text).toMatch(/^timeout +\S+ +\(default\)$/m);
      }
    }
    if (columns >= 80) expect((await cli(['profiles', 'show'], { columns })).stdout).toContain('┌');
  });

  it('sandbox admin lists: the first id whole on every line, the rest whole or left out and said', async () => {
    const cases: [string[], string, string][] = [
      [['orders', 'list'], 'ORDER_ID', 'order_id'],
      [['partners', 'list'], 'PARTNER_ID', 'partner_id'],
      [['keys', 'list'], 'API_KEY', 'api_key'],
      [['events', 'list'], 'EVENT_ID', 'event_id'],
      [['drifts', 'list'], 'DRIFT_ID', 'drift_id'],
      [['code-accesses'], 'ORDER_ID', 'order_id'],
    ];
    for (const [verb, header, field] of cases) {
      const argv = ['sandbox', 'admin', ...verb];
      const json = await jsonOf<Record<string, string>[] | { data: Record<string, string>[] }>(argv);
      const list = Array.isArray(json) ? json : json.data;
      const {
        boxes: [box],
        stderr,
      } = await boxesOn(argv, columns);
      expectIdsWhole(
        box!,
        header,
        list.map((x) => x[field]!),
      );
      if (verb[0] === 'orders')
        expectLeftOutSaid(box!, stderr, columns, { STATUS: 'status', TOTAL: 'total_amount', CREATED: 'created_at' });
    }
  });

  it('events list: the event id whole, the event type shown, the rest whole or left out and said', async () => {
    const envelope = (n: number, event: string) => ({
      event,
      event_id: `evt_01JDQ5N7ZS3QK6V9W2X4Y8B1${n}0`,
      created_at: '2026-11-22T09:30:00Z',
      data: {
        order_id: orderIds[0],
        status: 'PARTIALLY_DELIVERED',
        total_amount: 2000,
        currency: 'JPY',
        reference: 'ギフト 🎁 キャンペーン',
      },
    });
    const lines = [envelope(1, 'order.created'), envelope(2, 'order.partially_delivered')].map((e, i) =>
      JSON.stringify({
        received_at: `2026-11-22T09:3${i}:00.000Z`,
        envelope: e,
        meta: { signature_timestamp: 1795253400 + i * 60, webhook_id: e.event_id, remote_address: '127.0.0.1' },
      }),
    );
    writeFileSync(join(configDir, 'events.ndjson'), lines.join('\n') + '\n', { mode: 0o600 });
    const events = await jsonOf<{ event_id: string }[]>(['events', 'list']);
    expect(events).toHaveLength(2);
    const {
      boxes: [box],
      stderr,
    } = await boxesOn(['events', 'list'], columns);
    expectIdsWhole(
      box!,
      'EVENT ID',
      events.map((e) => e.event_id),
    );
    expectLeftOutSaid(box!, stderr, columns, { RECEIVED: 'received_at', EVENT: 'event', ORDER: 'order_id', STATUS: 'status' });
    // The event type is what the list is read for: shortened if need be, never left out.
    expect(box!.header).toContain('EVENT');
    if (columns >= 120) expect(box!.header).toEqual(expect.arrayContaining(['RECEIVED', 'EVENT', 'STATUS']));
  });

  it('certify --list fits; titles stay readable, the mostly empty NEEDS column goes first', async () => {
    const checks = await jsonOf<{ id: string; title: string }[]>(['certify', '--list']);
    const {
      boxes: [box],
      stderr,
    } = await boxesOn(['certify', '--list'], columns);
    expectIdsWhole(
      box!,
      'ID',
      checks.map((c) => c.id),
    );
    const at = box!.header.indexOf('TITLE');
    box!.rows.forEach((cells, i) => {
      const title = checks[i]!.title;
      // Whole, or cut no shorter than 24 cells (a few words, not "Your receiver …").
      if (cells[at] !== title) {
        expect(cells[at]!.endsWith('…'), cells[at]).toBe(true);
        expect(title.startsWith(cells[at]!.slice(0, -1).trimEnd())).toBe(true);
        expect(stringWidth(cells[at]!)).toBeGreaterThanOrEqual(23);
      }
    });
    expectLeftOutSaid(box!, stderr, columns, { NEEDS: 'needs' });
    if (columns >= 120) expect(box!.header).toContain('NEEDS');
  });
});
