/**
 * orders create / get / list / wait / cancel / codes against the sandbox over loopback,
 * on a TTY-like and a piped output. No full voucher code may appear unless asked for.
 */
import { existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Order, OrderCodes } from '../../src/contract/orders.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { forwardTo, sendError, startLoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, expectNoSecrets, fastSandbox, noStack, orderCount, profileDir, quickClock } from './orders-helpers.js';

let sb: SandboxHandle;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
});
afterAll(async () => {
  await sb.close();
});

const cli = (argv: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(argv, { env, overrides: { clock: quickClock() }, ...opts });

async function createJson(argv: string[]): Promise<Order & { idempotency_key: string }> {
  const r = await cli(['orders', 'create', ...argv, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Order & { idempotency_key: string };
}

describe('orders create: cache-hit', () => {
  it('--json prints the order as the contract defines it, plus idempotency_key; codes masked', async () => {
    const r = await cli([
      'orders',
      'create',
      '--product',
      'sbx-instant',
      '--denomination',
      '25',
      '--quantity',
      '2',
      '--reference',
      'po-1',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    const order = Order.parse(body);
    expect(order.status).toBe('DELIVERED');
    expect(order.fulfilled_from).toBe('cache');
    expect(order.total_amount).toBe(50);
    expect(order.reference).toBe('po-1');
    expect(body.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(order.vouchers).toHaveLength(2);
    for (const v of order.vouchers) {
      expect(v.code).toBeUndefined();
      expect(v.pin).toBeUndefined();
      expect(v.code_last4).toMatch(/^.{4}$/);
      const real = sb.state.orders[order.order_id]!.vouchers.find((x) => x.voucher_id === v.voucher_id)!;
      expect(real.code!.endsWith(v.code_last4!)).toBe(true);
    }
    // With --json the key is in the JSON (above, or in the JSON error): no human key line on
    // stderr, nor any other (stderr carries only a JSON error; the trace line is shown without --json).
    expect(r.stderr).not.toContain('Idempotency key');
    expect(r.stderr).toBe('');
    expectNoSecrets(sb, r);
  });

  it('on a TTY: a record and a vouchers table, masked; the key on stderr', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/trace [0-9a-f]{32}/);
    expect(r.stdout).toMatch(/order_id\s+ord_[0-9A-Z]{26}/);
    expect(r.stdout).toMatch(/status\s+DELIVERED/);
    expect(r.stdout).toContain('Vouchers');
    expect(r.stdout).toMatch(/│ •+[0-9A-Z]{4} +│/);
    expect(r.stderr).toMatch(/Idempotency key: \S+ \(generated\)/);
    // The codes are masked: where to see them, as orders get says (running create again would order again).
    const id = /order_id\s+(ord_\S+)/.exec(r.stdout)![1]!;
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(
      `Codes are masked; to fetch them through the secure endpoint: vouchers orders codes ${id} --reveal `,
    );
    expectNoSecrets(sb, r);
    const shown = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reveal'], { tty: true });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).not.toContain('Codes are masked');
  });

  it('piped: field<TAB>value lines and a vouchers section, masked', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--quantity', '3']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('status\tDELIVERED');
    expect(lines.find((l) => l.startsWith('idempotency_key\t'))).toBeDefined();
    expect(lines).toContain('# vouchers');
    expect(lines.filter((l) => l.startsWith('vch_'))).toHaveLength(3);
    expect(r.stdout).not.toContain('│');
    expectNoSecrets(sb, r);
  });

  it('--reveal shows the codes in full', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reveal', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const order = Order.parse(JSON.parse(r.stdout));
    const real = sb.state.orders[order.order_id]!.vouchers[0]!;
    expect(order.vouchers[0]!.code).toBe(real.code);
    expect(r.stdout).toContain(real.code!);
  });

  it('--codes-out writes a new 0600 file with the codes; stdout stays masked; never overwrites', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'codes.csv');
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '50', '--quantity', '2', '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const orderId = /order_id\t(ord_\S+)/.exec(r.stdout)![1]!;
    const codes = sb.state.orders[orderId]!.vouchers.map((v) => v.code!);
    expect(text.split('\n')[0]).toBe('order_id,voucher_id,product_id,denomination,expiry,code,pin');
    for (const c of codes) expect(text).toContain(c);
    expectNoSecrets(sb, r);
    expect(r.stderr).toContain('Wrote 2 codes');

    const before = orderCount(sb);
    const again = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '50', '--codes-out', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(orderCount(sb)).toBe(before);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('--codes-out into a missing directory is refused before ordering', async () => {
    const before = orderCount(sb);
    const r = await cli([
      'orders',
      'create',
      '--product',
      'sbx-instant',
      '--denomination',
      '10',
      '--codes-out',
      join(tempConfigDir(), 'nope', 'codes.csv'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot create .*codes\.csv: no directory/);
    expect(orderCount(sb)).toBe(before);
    noStack(r);
  });

  it('--codes-out onto a dangling symbolic link is refused before ordering; the link target is not created', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'elsewhere.csv');
    const link = join(dir, 'codes.csv');
    symlinkSync(target, link);
    const before = orderCount(sb);
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--codes-out', link]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/codes\.csv is a symbolic link/);
    expect(orderCount(sb)).toBe(before);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    noStack(r);
  });

  it('--codes-out onto a symbolic link to an existing file is refused before ordering; the file is untouched', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'keep me\n');
    const link = join(dir, 'codes.csv');
    symlinkSync(target, link);
    const before = orderCount(sb);
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--codes-out', link]);
    expect(r.code, r.stderr).toBe(2);
    expect(orderCount(sb)).toBe(before);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
  });

  it('a multi-item order from repeated --item', async () => {
    const order = await createJson(['--item', 'sbx-instant:10:1', '--item', 'sbx-instant:25:2']);
    expect(order.items).toEqual([
      { product_id: 'sbx-instant', denomination: 10, quantity: 1 },
      { product_id: 'sbx-instant', denomination: 25, quantity: 2 },
    ]);
    expect(order.total_amount).toBe(60);
    expect(order.vouchers).toHaveLength(3);
  });

  it('the same --idempotency-key twice orders once and says it was replayed', async () => {
    const key = `test-key-${Date.now()}`;
    const first = await createJson(['--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', key]);
    const before = orderCount(sb);
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', key, '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Order).order_id).toBe(first.order_id);
    expect(orderCount(sb)).toBe(before);
    // The "replayed" line is a human line: shown without --json.
    const human = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', key]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`order_id\t${first.order_id}`);
    expect(human.stderr).toMatch(/replayed/);
    expect(orderCount(sb)).toBe(before);
  });
});

describe('orders create: cache-miss', () => {
  it('prints PENDING and how to follow it', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '25']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toContain('status\tPENDING');
    const id = /order_id\t(ord_\S+)/.exec(r.stdout)![1]!;
    expect(r.stderr).toContain(`vouchers orders wait ${id}`);
  });

  it('--wait follows it to DELIVERED, one stderr line per status when piped', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '25', '--wait', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const order = Order.parse(JSON.parse(r.stdout));
    expect(order.status).toBe('DELIVERED');
    expect(order.timeline.map((t) => t.status)).toEqual(expect.arrayContaining(['PENDING', 'PROCESSING', 'DELIVERED']));
    // With --json stderr carries only a JSON error: no status lines.
    expect(r.stderr).toBe('');
    expectNoSecrets(sb, r);
    const piped = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '25', '--wait']);
    expect(piped.code, piped.stderr).toBe(0);
    const id = /order_id\t(ord_\S+)/.exec(piped.stdout)![1]!;
    expect(piped.stderr).toMatch(new RegExp(`${id}  PENDING`));
    expect(piped.stderr).toMatch(new RegExp(`${id}  DELIVERED  trace [0-9a-f]{32}`));
    // Times as the records print them (formatTime): "2026-11-24 01:24:02Z", not ISO's "T".
    expect(piped.stderr).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z  ${id}  DELIVERED`, 'm'));
    expectNoSecrets(sb, piped);
  });

  it('--wait on a TTY: spinner lines for each status, then the order; --reveal fetches the codes', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--wait', '--reveal'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/PENDING/);
    expect(r.stderr).toMatch(/✔.*DELIVERED/);
    const id = /order_id\s+(ord_\S+)/.exec(r.stdout)![1]!;
    const code = sb.state.orders[id]!.vouchers[0]!.code!;
    expect(r.stdout).toContain(code);
  });

  it('--wait on a narrow terminal: each status line fits it, the status and a trace ID that log --trace finds kept', async () => {
    for (const columns of [60, 100]) {
      // TERM=dumb: the status lines as plain lines, without the spinner's frames between them.
      const r = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--wait'], {
        tty: true,
        columns,
        env: { ...env, TERM: 'dumb' },
      });
      expect(r.code, r.stderr).toBe(0);
      const statusLines = r.stderr.split('\n').filter((l) => / (PENDING|PROCESSING|DELIVERED) {2,}trace /.test(l));
      expect(statusLines.length, r.stderr).toBeGreaterThanOrEqual(2);
      // The statuses are a column: every trace ID starts in the same cell.
      expect(new Set(statusLines.map((l) => l.indexOf(' trace ')))).toHaveLength(1);
      for (const line of statusLines) {
        expect(line.length + 2, line).toBeLessThanOrEqual(columns);
        // Whole, or cut in its middle: an ellipsis, then at least its last 8 hex digits (what log --trace finds).
        expect(line).toMatch(/trace (?:[0-9a-f]{32}|(?:…|\.\.\.)[0-9a-f]{8,31})$/);
      }
      // On the spinner too: each line it keeps (after two cells of margin) fits.
      const spun = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--wait'], { tty: true, columns });
      expect(spun.code, spun.stderr).toBe(0);
      const kept = [...spun.stderr.matchAll(/ {2}(\S[^\n]* (?:PENDING|PROCESSING|DELIVERED) {2,}trace [^\n]*)\n/g)].map((m) => m[1]!);
      expect(kept.length, spun.stderr).toBeGreaterThanOrEqual(2);
      for (const line of kept) expect(line.replace(/^.*(?:\(up to \S+\)|: [A-Z_]+) {2}/, '').length + 2, line).toBeLessThanOrEqual(columns);
    }
  });

  it('--wait on an order that ends unfulfilled prints it, then exits 5 saying it was refunded', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-vendor-fail', '--denomination', '10', '--wait', '--json']);
    expect(r.code, r.stderr).toBe(5);
    const order = Order.parse(JSON.parse(r.stdout));
    expect(order.status).toBe('REFUNDED');
    expect(r.stderr).toMatch(new RegExp(`${order.order_id} ended REFUNDED`));
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { code: 'ORDER_NOT_FULFILLED' } });
    noStack(r);
  });

  it('--wait with --wait-timeout gives up with exit 8, the order id and trace id', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--wait', '--wait-timeout', '20s']);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/ord_[0-9A-Z]{26} is still PENDING after 20s \(trace ID [0-9a-f]{32}\)/);
    expect(r.stderr).toContain('STILL_PENDING');
    noStack(r);
    // A script still gets the order (its id above all) on stdout.
    const id = /(ord_[0-9A-Z]{26}) is still PENDING/.exec(r.stderr)![1]!;
    expect(r.stdout).toContain(`order_id\t${id}`);
    expect(r.stdout).toMatch(/status\tPENDING/);
    const j = await cli([
      'orders',
      'create',
      '--product',
      'sbx-gated',
      '--denomination',
      '10',
      '--wait',
      '--wait-timeout',
      '20s',
      '--json',
    ]);
    expect(j.code).toBe(8);
    expect(Order.parse(JSON.parse(j.stdout)).status).toBe('PENDING');
    expectNoSecrets(sb, r);
  });
});

describe('orders create: checks before sending', () => {
  it('contract violations name the flag; nothing is sent', async () => {
    const before = orderCount(sb);
    for (const [argv, pattern] of [
      [['--product', 'sbx-instant', '--denomination', '10', '--quantity', '0'], /--quantity: must be at least 1/],
      [['--product', 'sbx-instant', '--denomination', '10', '--quantity', '101'], /--quantity: must be at most 100/],
      [['--product', 'sbx-instant', '--denomination', 'abc'], /--denomination "abc" is not a number/],
      [['--product', 'sbx-instant', '--denomination', '10', '--reference', 'x'.repeat(65)], /--reference: must be at most 64/],
      [['--item', 'sbx-instant:10:60', '--item', 'sbx-instant:25:60'], /at most 100 vouchers/],
      [['--denomination', '10'], /--product is required/],
      [
        ['--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', 'é'],
        /--idempotency-key must be 1 to 255 printable ASCII/,
      ],
    ] as [string[], RegExp][]) {
      const r = await cli(['orders', 'create', ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(pattern);
      noStack(r);
    }
    expect(orderCount(sb)).toBe(before);
  });

  it('--dry-run checks product, denomination and balance, prints the total, orders nothing', async () => {
    const before = orderCount(sb);
    const r = await cli(['orders', 'create', '--item', 'sbx-instant:25:2', '--item', 'sbx-async:100:1', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      dry_run: boolean;
      total_amount: number;
      currency: string;
      sufficient_funds: boolean;
      problems: string[];
    };
    expect(report).toMatchObject({ dry_run: true, total_amount: 150, currency: 'USD', sufficient_funds: true, problems: [] });

    const tty = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--dry-run'], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/total_amount\s+10\.00 USD/);

    const badDenom = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '30', '--dry-run']);
    expect(badDenom.code).toBe(5);
    expect(badDenom.stderr).toMatch(/does not offer denomination 30 \(offered: 10, 25, 50, 100\)/);

    const unknown = await cli(['orders', 'create', '--product', 'no-such-product', '--denomination', '10', '--dry-run']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/product "no-such-product" does not exist/);

    const noStock = await cli(['orders', 'create', '--product', 'sbx-out-of-stock', '--denomination', '10', '--dry-run', '--json']);
    expect(noStock.code, noStock.stderr).toBe(5);
    expect((JSON.parse(noStock.stdout) as { problems: string[] }).problems).toEqual([
      'product sbx-out-of-stock is out of stock: nothing in cache and the vendor has none',
    ]);
    expect(orderCount(sb)).toBe(before);
  });

  it('--dry-run exits with the code the real order would: a bad denomination, an unknown or out-of-stock product', async () => {
    for (const argv of [
      ['--product', 'sbx-instant', '--denomination', '30'],
      ['--product', 'no-such-product', '--denomination', '10'],
      ['--product', 'sbx-out-of-stock', '--denomination', '10'],
      ['--item', 'sbx-instant:10:1', '--item', 'sbx-instant:30:1'],
    ]) {
      const dry = await cli(['orders', 'create', ...argv, '--dry-run']);
      const real = await cli(['orders', 'create', ...argv]);
      expect(real.code, real.stderr).not.toBe(0);
      expect(dry.code, `${argv.join(' ')}: ${dry.stderr}`).toBe(real.code);
    }
  });

  it('--fields is checked before ordering: an unknown field orders nothing; --fields alone lists them', async () => {
    const before = orderCount(sb);
    const bad = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--fields', 'order_id,nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown field: nope/);
    expect(bad.stderr).not.toContain('Idempotency key');
    const list = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--fields']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')).toEqual(expect.arrayContaining(['order_id', 'status', 'idempotency_key']));
    expect(orderCount(sb)).toBe(before);
    const ok = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--fields', 'order_id,status']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^order_id\tord_[0-9A-Z]{26}\nstatus\tDELIVERED\n$/);
    expect(orderCount(sb)).toBe(before + 1);
  });

  it('an API rejection carries its code and trace ID', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-out-of-stock', '--denomination', '10']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/INSUFFICIENT_INVENTORY/);
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    noStack(r);
  });
});

describe('orders create: production profile', () => {
  it('requires --yes when not on a terminal', async () => {
    const dir = await profileDir(sb, 'prod', { production: true });
    const before = orderCount(sb);
    const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], {
      configDir: dir,
      env: { NO_COLOR: '1' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/profile prod is marked production/);
    expect(r.stderr).toMatch(/--yes/);
    expect(orderCount(sb)).toBe(before);
    const yes = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--yes'], {
      configDir: dir,
      env: { NO_COLOR: '1' },
    });
    expect(yes.code, yes.stderr).toBe(0);
    expect(orderCount(sb)).toBe(before + 1);
  });

  it('asks on a terminal: "y" orders, anything else does not', async () => {
    const dir = await profileDir(sb, 'prod', { production: true });
    const before = orderCount(sb);
    // orders create on a terminal, answering the question with `answer`.
    const create = (answer: string, ...args: string[]) =>
      runCli(['orders', 'create', ...args], { configDir: dir, tty: true, stdinTTY: true, stdin: `${answer}\n`, env: { NO_COLOR: '1' } });
    const no = await create('n', '--product', 'sbx-instant', '--denomination', '10');
    expect(no.code, no.stderr).toBe(10);
    expect(no.stderr).toContain('not confirmed: nothing was done');
    // The currency is the product's, as the catalog names it: the denomination and the total carry it.
    expect(no.stderr).toContain(
      'Profile prod is PRODUCTION: order 1 × sbx-instant 10.00 USD (1 voucher), total 10.00 USD charged to the USD wallet, for real? [y/N]',
    );
    const several = await create('n', '--item', 'sbx-instant:10:2', '--item', 'sbx-async:25:1', '--currency', 'USD');
    expect(several.code, several.stderr).toBe(10);
    expect(several.stderr).toContain(
      'PRODUCTION: order 2 × sbx-instant 10.00 USD, 1 × sbx-async 25.00 USD (3 vouchers), total 45.00 USD charged to the USD wallet, for real? [y/N]',
    );
    const jpy = await create('n', '--product', 'sakura-books-jp', '--denomination', '1000', '--quantity', '3');
    expect(jpy.stderr).toContain('order 3 × sakura-books-jp 1000 JPY (3 vouchers), total 3000 JPY charged to the JPY wallet, for real?');
    // What is not known is said, never summed into another currency.
    const unknown = await create('n', '--item', 'sbx-instant:10:1', '--item', 'no-such-product:5:1');
    expect(unknown.stderr).toContain(
      'order 1 × sbx-instant 10.00 USD, 1 × no-such-product 5 (2 vouchers), total not known: product "no-such-product" does not exist, for real?',
    );
    const mixed = await create('n', '--item', 'sbx-instant:10:1', '--item', 'lumen-cinemas-eu:10:1');
    expect(mixed.stderr).toContain('total not known: the items are sold in USD and EUR, and one order is paid from one wallet, for real?');
    expect(orderCount(sb)).toBe(before);
    const yes = await create('y', '--product', 'sbx-instant', '--denomination', '10');
    expect(yes.code, yes.stderr).toBe(0);
    expect(orderCount(sb)).toBe(before + 1);
  });
});

describe('orders get', () => {
  it('--json is the order; the TTY view shows items, vouchers (masked) and the timeline', async () => {
    const created = await createJson(['--product', 'sbx-instant', '--denomination', '25', '--quantity', '2']);
    const j = await cli(['orders', 'get', created.order_id, '--json']);
    expect(j.code).toBe(0);
    const order = Order.parse(JSON.parse(j.stdout));
    expect(order.order_id).toBe(created.order_id);
    expect(order.vouchers.every((v) => v.code === undefined && v.code_last4)).toBe(true);
    // On a terminal too, --json leaves stderr to a JSON error: no note in words, as orders create --json.
    const jsonOnTerminal = await cli(['orders', 'get', created.order_id, '--json'], { tty: true });
    expect(jsonOnTerminal.code, jsonOnTerminal.stderr).toBe(0);
    expect(JSON.parse(jsonOnTerminal.stdout)).toMatchObject({ order_id: created.order_id });
    expect(jsonOnTerminal.stderr).toBe('');

    const tty = await cli(['orders', 'get', created.order_id], { tty: true });
    expect(tty.code).toBe(0);
    for (const section of ['Items', 'Vouchers', 'Timeline']) expect(tty.stdout).toContain(section);
    expect(tty.stdout).toMatch(/│ DELIVERED\s+│/);
    const piped = await cli(['orders', 'get', created.order_id]);
    expect(piped.stdout.split('\n')).toEqual(expect.arrayContaining(['# items', '# vouchers', '# timeline']));
    expectNoSecrets(sb, j);
    expectNoSecrets(sb, tty);
    expectNoSecrets(sb, piped);
  });

  it('--fields timeline is accepted: one cell of the steps when piped, the array with --json', async () => {
    const created = await createJson(['--product', 'sbx-instant', '--denomination', '10']);
    const piped = await cli(['orders', 'get', created.order_id, '--fields', 'order_id,timeline']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(new RegExp(`^order_id\\t${created.order_id}\\ntimeline\\t.*DELIVERED \\d{4}-\\d\\d-\\d\\d`));
    const json = await cli(['orders', 'get', created.order_id, '--fields', 'timeline', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { timeline: { status: string }[] }).timeline.map((t) => t.status)).toContain('DELIVERED');
    const list = await cli(['orders', 'get', created.order_id, '--fields']);
    expect(list.stdout.split('\n')).toContain('timeline');
    const plain = await cli(['orders', 'get', created.order_id]);
    expect(plain.stdout).not.toMatch(/^timeline\t/m);
  });

  it('--fields vouchers is accepted by create and get: one cell of ids, statuses and codes, masked unless --reveal', async () => {
    const instant = (...more: string[]) =>
      cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--fields', 'order_id,vouchers', ...more]);
    const made = await instant('--quantity', '2');
    expect(made.code, made.stderr).toBe(0);
    const id = /^order_id\t(ord_\S+)$/m.exec(made.stdout)![1]!;
    const codes = sb.state.orders[id]!.vouchers.map((v) => v.code!);
    const cell = /^vouchers\t(.*)$/m.exec(made.stdout)![1]!;
    expect(cell).toMatch(/^vch_\S+ ISSUED ••••••••\S{4}; vch_\S+ ISSUED ••••••••\S{4}$/);
    for (const c of codes) expect(made.stdout).not.toContain(c);
    const shown = await cli(['orders', 'get', id, '--fields', 'vouchers']);
    expect(shown.code, shown.stderr).toBe(0);
    for (const c of codes) expect(shown.stdout).not.toContain(c);
    const revealed = await instant('--reveal');
    const rid = /^order_id\t(ord_\S+)$/m.exec(revealed.stdout)![1]!;
    expect(revealed.stdout).toContain(sb.state.orders[rid]!.vouchers[0]!.code!);
  });

  it('an id that cannot be one is a usage error; any other is sent, and an unknown one is not found (exit 4) with a trace ID', async () => {
    for (const id of ['ord_98\u00071234', 'ord_', ' ']) {
      const refused = await cli(['orders', 'get', id]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('is not an order id');
      // Where to find a real one: the list of orders, not the output of the command that placed it.
      expect(refused.stderr).toContain('vouchers orders list shows yours');
    }
    const missing = await cli(['orders', 'get', 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    // An id of another shape than the sandbox issues is sent as given: the server decides.
    for (const id of ['ord_981234', 'ord_98 1234', '981234', 'order-1']) {
      const other = await cli(['orders', 'get', id]);
      expect(other.code).toBe(4);
      expect(other.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    }
    // Not the document's shape: perhaps a reference typed where the id goes.
    const reference = await cli(['orders', 'get', 'order-1']);
    expect(reference.stderr).toContain('if order-1 is the reference you gave the order, vouchers orders list --reference order-1 finds it');
  });
});

describe('orders list', () => {
  it('filters by status and reference; --json rows match the contract', async () => {
    const ref = `list-${Date.now()}`;
    const a = await createJson(['--product', 'sbx-instant', '--denomination', '10', '--reference', ref]);
    const r = await cli(['orders', 'list', '--reference', ref, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = (JSON.parse(r.stdout) as unknown[]).map((o) => Order.parse(o));
    expect(rows.map((o) => o.order_id)).toEqual([a.order_id]);
    const held = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const pending = await cli(['orders', 'list', '--status', 'pending', '--output', 'ndjson']);
    const ps = pending.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => Order.parse(JSON.parse(l)));
    expect(ps.map((o) => o.order_id)).toContain(held.order_id);
    expect(ps.every((o) => o.status === 'PENDING')).toBe(true);
    expectNoSecrets(sb, r);
  });

  it('one page with a hint, or --all following the cursors; table on a TTY, TSV when piped', async () => {
    for (let i = 0; i < 3; i++) await createJson(['--product', 'sbx-instant', '--denomination', '10']);
    const total = Object.keys(sb.state.orders).length;
    const page = await cli(['orders', 'list', '--limit', '2']);
    expect(page.code).toBe(0);
    expect(page.stdout.trim().split('\n')).toHaveLength(2);
    expect(page.stderr).toMatch(
      /^More orders \(or every page: --all instead of --cursor\):\n {2}vouchers orders list --limit 2 --cursor \S+$/m,
    );
    const all = await cli(['orders', 'list', '--limit', '3', '--all', '--output', 'csv', '--fields', 'order_id,status']);
    expect(all.code).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).toBe('order_id,status');
    expect(new Set(lines.slice(1)).size).toBe(total);
    const tty = await cli(['orders', 'list', '--limit', '5'], { tty: true });
    expect(tty.stdout).toContain('ORDER_ID');
    expect(tty.stdout).toContain('│');
  });

  it('bad filters are usage errors', async () => {
    for (const [argv, pattern] of [
      // A word that is not one of ours goes to the server (its own name for a status: the
      // document leaves them open); what cannot be a status name is refused here.
      [['--status', 'no;thing'], /--status "no;thing" is not an order status/],
      [['--from', '2026-02-30'], /--from "2026-02-30" is not a date: February 2026 has 28 days/],
      [['--from', '2026-11-02', '--to', '2026-11-01'], /is after --to/],
      [['--limit', '500'], /--limit "500" is not a page size/],
    ] as [string[], RegExp][]) {
      const r = await cli(['orders', 'list', ...argv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(pattern);
    }
  });
});

describe('orders wait', () => {
  it('follows an order to DELIVERED; --until PROCESSING stops earlier', async () => {
    const created = await createJson(['--product', 'sbx-async', '--denomination', '50']);
    const until = await cli(['orders', 'wait', created.order_id, '--until', 'processing', '--json']);
    expect(until.code, until.stderr).toBe(0);
    expect(Order.parse(JSON.parse(until.stdout)).timeline.some((t) => t.status === 'PROCESSING')).toBe(true);
    const r = await cli(['orders', 'wait', created.order_id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Order.parse(JSON.parse(r.stdout)).status).toBe('DELIVERED');
    expect(until.stderr + r.stderr).toBe(''); // JSON output: no progress lines on stderr
    // On a terminal the order ends with where its masked codes are, as orders get says.
    const tty = await cli(['orders', 'wait', created.order_id], { tty: true });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(/│ •+[0-9A-Z]{4} +│/);
    expect(tty.stderr.replace(/\s+/g, ' ')).toContain(
      `Codes are masked; to fetch them through the secure endpoint: vouchers orders codes ${created.order_id} --reveal `,
    );
  });

  it('exit 8 at the timeout with the order id and trace ID; --json error envelope', async () => {
    const created = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const r = await cli(['orders', 'wait', created.order_id, '--wait-timeout', '30s']);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(`order ${created.order_id} is still PENDING after 30s`);
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    // Held at the sandbox's admin gate (its timeline says so): following it again would only time out again.
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(
      `held at the sandbox's admin gate until an operator approves it: vouchers sandbox admin approve ${created.order_id}`,
    );
    expect(r.stderr).not.toContain('keep following it');
    expect(r.stdout).toContain(`order_id\t${created.order_id}`);
    const j = await cli(['orders', 'wait', created.order_id, '--wait-timeout', '5s', '--json']);
    expect(j.code).toBe(8);
    expect(Order.parse(JSON.parse(j.stdout)).order_id).toBe(created.order_id);
    const envelope = JSON.parse(j.stderr.trim().split('\n').pop()!) as { error: { code: string }; trace_id: string };
    expect(envelope.error.code).toBe('STILL_PENDING');
    expect(envelope.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('--wait-timeout is the wait; --timeout alone still sets it as before, with a note; given both, each keeps its meaning', async () => {
    const created = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const old = await cli(['orders', 'wait', created.order_id, '--timeout', '2s']);
    expect(old.code).toBe(8);
    expect(old.stderr).toContain('is still PENDING after 2s');
    expect(old.stderr).toContain(
      'Note: --timeout is the timeout of each request; here it also sets how long to follow the order, as before. Use --wait-timeout for that.',
    );
    // The global --timeout no longer doubles as the wait: the wait given is the one that counts.
    const both = await cli(['--timeout', '20s', 'orders', 'wait', created.order_id, '--wait-timeout', '2s']);
    expect(both.code).toBe(8);
    expect(both.stderr).toContain('is still PENDING after 2s');
    expect(both.stderr).not.toContain('Note:');
    const refused = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--wait-timeout', '2s']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--wait-timeout is how long --wait follows the order');
  });

  it('an order that ends elsewhere than --until fails (exit 5)', async () => {
    const created = await createJson(['--product', 'sbx-vendor-fail', '--denomination', '10']);
    const r = await cli(['orders', 'wait', created.order_id, '--until', 'DELIVERED']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/ended REFUNDED without reaching DELIVERED/);
  });

  it('Ctrl-C stops it (exit 130)', async () => {
    const created = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const { testIO } = await import('../helpers/io.js');
    const { run } = await import('../../src/main.js');
    const io = testIO({ env: { ...env, VOUCHERS_CONFIG_DIR: tempConfigDir() } });
    const running = run(['orders', 'wait', created.order_id], io);
    setTimeout(() => io.interrupt(), 50);
    expect(await running).toBe(130);
  });
});

describe('orders cancel', () => {
  it('cancels a PENDING order with --yes; a second cancel (its answer lost, run again) says it is cancelled already, exit 0', async () => {
    const created = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const noYes = await cli(['orders', 'cancel', created.order_id]);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toMatch(/--yes/);
    const r = await cli(['orders', 'cancel', created.order_id, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(['CANCELLED', 'REFUNDED']).toContain(Order.parse(JSON.parse(r.stdout)).status);
    const again = await cli(['orders', 'cancel', created.order_id, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(
        `Order ${created.order_id} is already (CANCELLED|REFUNDED): it was cancelled before, nothing was done now \\(the cancel was refused: HTTP 409 ORDER_NOT_CANCELLABLE, trace [0-9a-f]{32}\\)`,
      ),
    );
    expect(again.stdout).toContain(created.order_id);
  });

  it('a DELIVERED order is refused (409, exit 5) with its trace ID', async () => {
    const created = await createJson(['--product', 'sbx-instant', '--denomination', '10']);
    const refused = await cli(['orders', 'cancel', created.order_id, '--yes']);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/ORDER_NOT_CANCELLABLE/);
    expect(refused.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    expect(refused.stderr).not.toContain('already');
  });

  it('an unknown --fields is refused before cancelling', async () => {
    const created = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const r = await cli(['orders', 'cancel', created.order_id, '--yes', '--fields', 'nope']);
    expect(r.code).toBe(2);
    expect(sb.state.orders[created.order_id]!.status).toBe('PENDING');
  });

  it('asks on a terminal', async () => {
    const created = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const r = await cli(['orders', 'cancel', created.order_id], { tty: true, stdinTTY: true, stdin: 'yes\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Cancel order ${created.order_id}? [y/N]`);
    // On a production profile, in the words of every production confirmation.
    const pending = await createJson(['--product', 'sbx-gated', '--denomination', '10']);
    const prod = await cli(['orders', 'cancel', pending.order_id], {
      tty: true,
      stdinTTY: true,
      stdin: 'n\n',
      env: { ...env, VOUCHERS_PRODUCTION: 'true', NO_COLOR: '1' },
    });
    expect(prod.code, prod.stderr).toBe(10);
    expect(prod.stderr).toMatch(new RegExp(`Profile \\S+ is PRODUCTION: cancel order ${pending.order_id} for real\\? \\[y/N\\]`));
    expect(sb.state.orders[pending.order_id]!.status).toBe('PENDING');
  });
});

describe('orders codes', () => {
  it('an order that ended with some vouchers failed: the codes issued, then how many of how many, exit 5', async () => {
    const placed = await cli([
      'orders',
      'create',
      '--product',
      'sbx-partial',
      '--denomination',
      '10',
      '--quantity',
      '4',
      '--wait',
      '--json',
    ]);
    expect(placed.code, placed.stderr).toBe(5);
    const id = (JSON.parse(placed.stdout) as Order).order_id;
    const issued = sb.state.orders[id]!.vouchers.filter((v) => v.status === 'ISSUED').length;
    expect(issued).toBe(2);
    const codes = await cli(['orders', 'codes', id]);
    expect(codes.code, codes.stderr).toBe(5);
    expect(codes.stdout.trim().split('\n')).toHaveLength(2);
    expect(codes.stderr).toContain(
      `Error: 2 of 4 codes: order ${id} ended PARTIALLY_DELIVERED, and the 2 that failed are refunded to the USD wallet; these are all the codes it will have`,
    );
    expect(codes.stderr).toContain('ORDER_PARTIALLY_DELIVERED');
    expect(codes.stderr).toContain(`hint      see the refund of the failed part: vouchers transactions list --order ${id}`);
    // Into a file: the codes issued are written, and the exit code still says they are not all.
    const file = join(tempConfigDir(), 'codes.csv');
    const out = await cli(['orders', 'codes', id, '--codes-out', file, '--json']);
    expect(out.code, out.stderr).toBe(5);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
    const error = JSON.parse(out.stderr.trim().split('\n').at(-1)!) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('ORDER_PARTIALLY_DELIVERED');
    expect(error.error.message).toMatch(/^2 of 4 codes: /);
    expectNoSecrets(sb, codes);
  });

  it('the order unreadable when its codes are counted: the codes are printed, and a note says they were not checked to be all', async () => {
    const placed = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--quantity', '2', '--json']);
    const id = (JSON.parse(placed.stdout) as Order).order_id;
    const { origin } = new URL(sb.baseUrl);
    // The secure endpoint answers; the order itself does not (503, every time).
    const proxy = await startLoopbackServer(async (req, res) =>
      req.method === 'GET' && req.target.endsWith(`/orders/${id}`)
        ? sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'try later', { 'x-trace-id': 'trace-of-the-503' })
        : forwardTo(origin, req, res),
    );
    try {
      const r = await cli(['orders', 'codes', id], { env: { ...env, VOUCHERS_BASE_URL: proxy.baseUrl, VOUCHERS_MAX_RETRIES: '0' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(2);
      expect(r.stderr).toContain(
        `Not checked that these are all the codes of order ${id}: reading the order (GET /orders/${id}) failed (SERVICE_UNAVAILABLE: try later · trace trace-of-the-503)`,
      );
      expectNoSecrets(sb, r);
    } finally {
      await proxy.close();
    }
  });

  it('--reveal on a narrow terminal shows every code with its pin (one block a voucher), not the codes without their pins', async () => {
    const created = await createJson(['--product', 'sbx-instant', '--denomination', '25', '--quantity', '2']);
    const vouchers = sb.state.orders[created.order_id]!.vouchers;
    expect(vouchers.every((v) => typeof v.pin === 'string' && v.pin.length > 0)).toBe(true);
    for (const columns of [60, 80]) {
      const codes = await cli(['orders', 'codes', created.order_id, '--reveal'], { tty: true, columns });
      expect(codes.code, codes.stderr).toBe(0);
      for (const v of vouchers) {
        expect(codes.stdout, `${columns} columns`).toContain(v.code!);
        expect(codes.stdout, `${columns} columns`).toMatch(new RegExp(`\\b${v.pin!}\\b`));
      }
      expect(codes.stderr).not.toMatch(/Left out[^\n]*\bpin\b/);
      for (const line of codes.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
      // The cache-hit answer of orders create --reveal too.
      const order = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reveal'], { tty: true, columns });
      expect(order.code, order.stderr).toBe(0);
      const id = /order_id\s+(ord_\S+)/.exec(order.stdout)![1]!;
      for (const v of sb.state.orders[id]!.vouchers) expect(order.stdout).toMatch(new RegExp(`\\b${v.pin!}\\b`));
    }
    // Without --reveal, still masked.
    const masked = await cli(['orders', 'codes', created.order_id], { tty: true, columns: 60 });
    expectNoSecrets(sb, masked);
  });

  it('masked by default in every format; --reveal shows them; --codes-out writes them and keeps stdout masked', async () => {
    const created = await createJson(['--product', 'sbx-instant', '--denomination', '100', '--quantity', '2']);
    const id = created.order_id;
    const real = sb.state.orders[id]!.vouchers.map((v) => v.code!);

    const tty = await cli(['orders', 'codes', id], { tty: true });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(/•+[0-9A-Z]{4}/);
    expect(tty.stderr).toMatch(/--reveal/);
    const csv = await cli(['orders', 'codes', id, '--output', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('voucher_id,product_id,denomination,expiry,code,pin');
    const json = await cli(['orders', 'codes', id, '--output', 'json']);
    const masked = OrderCodes.parse(JSON.parse(json.stdout));
    expect(masked.data).toHaveLength(2);
    const pins = sb.state.orders[id]!.vouchers.map((v) => v.pin);
    expect(masked.data.map((c) => c.pin)).toEqual(pins.map((p) => (p ? '••••' : null)));
    for (const r of [tty, csv, json]) expectNoSecrets(sb, r);

    const revealed = await cli(['orders', 'codes', id, '--reveal', '--json']);
    const full = OrderCodes.parse(JSON.parse(revealed.stdout));
    expect(full.data.map((c) => c.code).sort()).toEqual([...real].sort());

    const file = join(tempConfigDir(), 'out.json');
    const out = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(out.code, out.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { code: string }[];
    expect(saved.map((c) => c.code).sort()).toEqual([...real].sort());
    expectNoSecrets(sb, out);

    const clash = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/already exists/);
  });

  it('refuses a file that exists before fetching anything', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'taken.csv');
    writeFileSync(file, 'keep me');
    const created = await createJson(['--product', 'sbx-instant', '--denomination', '10']);
    const accesses = sb.state.code_accesses.length;
    const r = await cli(['orders', 'codes', created.order_id, '--codes-out', file]);
    expect(r.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    expect(sb.state.code_accesses.length).toBe(accesses);
    expect(existsSync(file)).toBe(true);
  });
});

describe('help', () => {
  it('every verb has examples', async () => {
    for (const verb of ['create', 'get', 'list', 'wait', 'cancel', 'codes']) {
      const r = await runCli(['orders', verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Examples:\n\s+\$ vouchers orders/);
    }
  });
});
