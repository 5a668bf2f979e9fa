/**
 * List output across the commands of the catalog, wallets, transactions and reconciliation:
 * the next-page hint is a command that really prints the next page, tables on a narrow
 * terminal never cut amounts, statuses, times or ids, and an explicit `--output table`
 * prints a table even when piped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../src/contract/catalog.js';
import type { Transaction, Wallet } from '../../src/contract/money.js';
import { ReconciliationReport } from '../../src/contract/reconciliation.js';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { formatMoney, formatTime } from '../../src/core/output/format.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf, FAST_LIMITS, profileDir } from '../helpers/sandbox.js';
import { ANSI, hintArgv, tableRows, tableHeader } from '../helpers/cli-text.js';
import { until } from '../helpers/until.js';

let sb: Awaited<ReturnType<typeof startSandbox>>;
let env: Record<string, string>;
let client: ApiClient;
let orderId: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS, enablePlanned: true });
  env = envOf(sb);
  client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
  for (let i = 0; i < 3; i++) {
    await client.request({
      method: 'POST',
      path: '/payouts',
      body: { currency: 'USD', amount: 1 + i, reference: `lo-${i}` },
      idempotencyKey: `list-output-payout-${i}`,
    });
  }
  const order = await client.request<{ order_id: string }>({
    method: 'POST',
    path: '/orders',
    body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
    idempotencyKey: 'list-output-order',
  });
  orderId = order.data.order_id;
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('next-page hint', () => {
  it('transactions list: the hint repeats the filters, so running it prints the next page of the same selection', async () => {
    const first = await runCli(['transactions', 'list', '--type', 'payout', '--limit', '1', '--json'], { env });
    expect(first.code).toBe(0);
    const page1 = JSON.parse(first.stdout) as Transaction[];
    expect(page1.map((t) => t.type)).toEqual(['PAYOUT']);
    const argv = hintArgv(first.stderr);
    expect(argv).toEqual(expect.arrayContaining(['--type', 'PAYOUT', '--limit', '1', '--json']));
    const second = await runCli(argv, { env });
    expect(second.code).toBe(0);
    const page2 = JSON.parse(second.stdout) as Transaction[];
    expect(page2).toHaveLength(1);
    expect(page2[0]!.type).toBe('PAYOUT');
    expect(page2[0]!.transaction_id).not.toBe(page1[0]!.transaction_id);
    // Following the hints walks exactly the filtered rows.
    const all = JSON.parse((await runCli(['transactions', 'list', '--type', 'PAYOUT', '--json'], { env })).stdout) as Transaction[];
    const walked = [...page1, ...page2];
    let next = second;
    while (next.stderr.includes('--cursor')) {
      next = await runCli(hintArgv(next.stderr), { env });
      walked.push(...(JSON.parse(next.stdout) as Transaction[]));
    }
    expect(walked.map((t) => t.transaction_id)).toEqual(all.map((t) => t.transaction_id));
  });

  it('transactions list: dates, the order and the global --profile are repeated too, quoted for the shell', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const r = await runCli(
      ['transactions', 'list', '--from', today, '--to', today, '--limit', '1', '--output', 'csv', '--fields', 'transaction_id,type'],
      { env },
    );
    expect(r.code).toBe(0);
    const argv = hintArgv(r.stderr);
    expect(argv.slice(0, 2)).toEqual(['transactions', 'list']);
    expect(argv).toEqual(
      expect.arrayContaining(['--from', today, '--to', today, '--limit', '1', '--output', 'csv', '--fields', 'transaction_id,type']),
    );
    const next = await runCli(argv, { env });
    expect(next.code).toBe(0);
    expect(next.stdout.split('\n')[0]).toBe('transaction_id,type');

    // The order filter: an order the vendor fails has two transactions, its debit and its refund.
    const failed = await client.request<{ order_id: string }>({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'sbx-vendor-fail', denomination: 10, quantity: 1 }] },
      idempotencyKey: 'list-output-vendor-fail',
    });
    const failedId = failed.data.order_id;
    // A second page once the refund is booked.
    const ofOrder = await until(
      async () => {
        const r = await runCli(['transactions', 'list', '--order', failedId, '--limit', '1'], { env });
        return r.stderr.includes('--cursor') && r;
      },
      'the refund of the failed order',
      5_000,
    );
    const orderArgv = hintArgv(ofOrder.stderr);
    expect(orderArgv).toEqual(expect.arrayContaining(['--order', failedId]));
    const rest = await runCli([...orderArgv, '--output', 'ndjson'], { env });
    expect(rest.code).toBe(0);
    const restRows = rest.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Transaction);
    expect(restRows.length).toBeGreaterThan(0);
    expect(restRows.every((t) => t.order_id === failedId)).toBe(true);

    const dir = await profileDir(sb, 'ci');
    const viaProfile = await runCli(['--profile', 'ci', 'transactions', 'list', '--type', 'payout', '--limit', '1'], { configDir: dir });
    expect(viaProfile.code).toBe(0);
    const profileArgv = hintArgv(viaProfile.stderr);
    expect(profileArgv.slice(0, 4)).toEqual(['--profile', 'ci', 'transactions', 'list']);
    const again = await runCli(profileArgv, { configDir: dir });
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n')).toHaveLength(1);
    expect(again.stdout).toContain('PAYOUT');
  });
});

describe('tables on a narrow terminal', () => {
  for (const columns of [80, 100]) {
    it(`transactions list at ${columns} columns: amounts, types and times whole; what is left out is said on stderr`, async () => {
      const json = JSON.parse((await runCli(['transactions', 'list', '--limit', '6', '--json'], { env })).stdout) as Transaction[];
      const r = await runCli(['transactions', 'list', '--limit', '6'], { env, tty: true, columns });
      expect(r.code).toBe(0);
      const text = r.stdout.replace(ANSI, '');
      for (const line of text.trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(columns);
      const header = tableHeader(r.stdout);
      expect(header).toEqual(expect.arrayContaining(['TIME', 'TYPE', 'AMOUNT']));
      const rows = tableRows(r.stdout);
      expect(rows).toHaveLength(json.length);
      rows.forEach((cells, i) => {
        const t = json[i]!;
        expect(cells[header.indexOf('TIME')]).toBe(formatTime(t.created_at));
        expect(cells[header.indexOf('TYPE')]).toBe(t.type);
        expect(cells[header.indexOf('AMOUNT')]).toBe(formatMoney(t.amount, t.currency));
        if (header.includes('BALANCE')) expect(cells[header.indexOf('BALANCE')]).toBe(formatMoney(t.balance_after, t.currency));
        if (header.includes('ID')) expect(cells[header.indexOf('ID')]).toBe(t.transaction_id);
      });
      expect(r.stderr).toMatch(/left out/i);
      expect(r.stderr).toContain('--output json');
      // The --fields list it suggests is one the command takes, and shows what was left out.
      const suggested = /--fields ([\w,]+)\)/.exec(r.stderr)?.[1];
      expect(suggested, r.stderr).toBeDefined();
      const shown = await runCli(['transactions', 'list', '--limit', '6', '--fields', suggested!], { env, tty: true, columns });
      expect(shown.code, shown.stderr).toBe(0);
      expect(tableRows(shown.stdout)).toHaveLength(json.length);
    });
  }

  it('at a width where everything fits, nothing is left out', async () => {
    const r = await runCli(['transactions', 'list', '--limit', '3'], { env, tty: true, columns: 250 });
    expect(r.stderr).not.toMatch(/left out/i);
    expect(tableHeader(r.stdout)).toEqual(['TIME', 'ID', 'TYPE', 'AMOUNT', 'BALANCE', 'ORDER/PAYOUT', 'DESCRIPTION']);
  });

  it('--fields columns are never left out: the table is wider than the terminal rather than cut', async () => {
    const r = await runCli(
      ['transactions', 'list', '--limit', '2', '--fields', 'transaction_id,created_at,amount,balance_after,order_id,payout_id'],
      { env, tty: true, columns: 60 },
    );
    expect(r.code).toBe(0);
    const text = r.stdout.replace(ANSI, '');
    expect(text).not.toContain('…');
    expect(r.stderr).not.toMatch(/left out/i);
  });

  it('products list at 80 columns: ids and currencies whole; names readable; denominations cut after a whole amount', async () => {
    const json = JSON.parse((await runCli(['products', 'list', '--json'], { env })).stdout) as Product[];
    const r = await runCli(['products', 'list'], { env, tty: true, columns: 80 });
    expect(r.code).toBe(0);
    for (const line of r.stdout.replace(ANSI, '').trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    const header = tableHeader(r.stdout);
    const rows = tableRows(r.stdout);
    rows.forEach((cells, i) => {
      const p = json[i]!;
      expect(cells[header.indexOf('ID')]).toBe(p.product_id);
      expect(cells[header.indexOf('CURRENCY')]).toBe(p.currency);
      // A name cut to a few letters says nothing: it keeps 18 cells, the optional columns go first.
      expect(cells[header.indexOf('NAME')]!.length).toBeGreaterThanOrEqual(Math.min(18, p.name.length));
      // Denominations are amounts: whole, or cut after a whole amount ("5,10,15,…"), never inside one.
      const whole = p.denominations.join(',') + (p.denominations_truncated ? ',…' : '');
      const shown = cells[header.indexOf('DENOMINATIONS')]!;
      if (shown !== whole) expect(shown.endsWith(',…') && whole.startsWith(shown.slice(0, -1)), `${shown} / ${whole}`).toBe(true);
    });
    expect(header).toEqual(['ID', 'NAME', 'CURRENCY', 'DENOMINATIONS']);
  });

  it('categories list at 40 columns: ids whole, names and descriptions shortened', async () => {
    const r = await runCli(['categories', 'list'], { env, tty: true, columns: 40 });
    const rows = tableRows(r.stdout);
    expect(rows.map((c) => c[0])).toContain('sandbox');
    expect(r.stdout).toContain('…');
  });

  it('wallets list at 50 columns: every amount whole, the table wider than the terminal if need be', async () => {
    const json = JSON.parse((await runCli(['wallets', 'list', '--json'], { env })).stdout) as Wallet[];
    const r = await runCli(['wallets', 'list'], { env, tty: true, columns: 50 });
    expect(r.code).toBe(0);
    const text = r.stdout.replace(ANSI, '');
    expect(text).not.toContain('…');
    for (const w of json) {
      expect(text).toContain(formatMoney(w.available, w.currency));
      expect(text).toContain(formatMoney(w.reserved, w.currency));
    }
  });
});

describe('--output table when piped', () => {
  it('an explicit --output table prints the table with its header and without colour; the default stays TSV', async () => {
    const table = await runCli(['wallets', 'list', '--output', 'table'], { env: { ...env, NO_COLOR: undefined } });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('│');
    expect(tableHeader(table.stdout)).toEqual(['CURRENCY', 'AVAILABLE', 'RESERVED', 'UPDATED']);
    expect(table.stdout).not.toMatch(ANSI);
    const tsv = await runCli(['wallets', 'list'], { env });
    expect(tsv.stdout).not.toContain('│');
    expect(tsv.stdout).toMatch(/^USD\t/m);
  });

  it('piped, a table is not fitted to a terminal: nothing cut, nothing left out', async () => {
    const r = await runCli(['transactions', 'list', '--limit', '3', '--output', 'table'], { env, columns: 40 });
    expect(r.code).toBe(0);
    expect(tableHeader(r.stdout)).toEqual(['TIME', 'ID', 'TYPE', 'AMOUNT', 'BALANCE', 'ORDER/PAYOUT', 'DESCRIPTION']);
    expect(r.stdout).not.toContain('…');
  });

  it('--help says what the formats do', async () => {
    const r = await runCli(['transactions', 'list', '--help']);
    expect(r.stdout).toMatch(/--output <format>[\s\S]*table[\s\S]*tab-separated/);
  });
});

describe('reconciliation get: list output for the drifts', () => {
  beforeAll(async () => {
    const made = await fetch(`${sb.adminUrl}/drifts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: orderId, vendor_record: 'VR-LIST-0001' }),
    });
    expect(made.status).toBe(201);
  });

  it('--output csv prints the drifts as CSV; --fields picks drift fields', async () => {
    const r = await runCli(['reconciliation', 'get', 'today', '--output', 'csv'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('order_id,vendor,product_id,our_allocation,vendor_record,detected_at,resolution');
    // The vendor's record is no id: masked as a code.
    expect(lines.some((l) => l.startsWith(`${orderId},`) && l.includes('••••••••0001'))).toBe(true);
    expect(r.stdout).not.toContain('VR-LIST-0001');
    const picked = await runCli(['reconciliation', 'get', 'today', '--output', 'csv', '--fields', 'order_id,resolution'], { env });
    expect(picked.code).toBe(0);
    expect(picked.stdout).toContain(`${orderId},pending`);
    const names = await runCli(['reconciliation', 'get', 'today', '--output', 'csv', '--fields'], { env });
    expect(names.stdout.trim().split('\n')).toContain('vendor_record');
  });

  it('--output ndjson prints one drift per line; --output json the report, as --json does', async () => {
    const nd = await runCli(['reconciliation', 'get', 'today', '--output', 'ndjson'], { env });
    expect(nd.code).toBe(0);
    const drifts = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { order_id: string });
    expect(drifts.map((d) => d.order_id)).toContain(orderId);
    const json = await runCli(['reconciliation', 'get', 'today', '--output', 'json'], { env });
    expect(json.code).toBe(0);
    ReconciliationReport.parse(JSON.parse(json.stdout));
  });

  it('--output table piped prints the summary and the drifts table', async () => {
    const r = await runCli(['reconciliation', 'get', 'today', '--output', 'table'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/orders_total\s+\d+/);
    expect(r.stdout).toContain('RESOLUTION');
    expect(r.stdout).toContain('••••••••0001');
  });

  it('--output with a bad format is a usage error', async () => {
    const r = await runCli(['reconciliation', 'get', 'today', '--output', 'xml'], { env });
    expect(r.code).toBe(2);
  });
});
