/**
 * A server that issues order ids in another shape than the document's `ord_<id>` (`12345`,
 * `A-981`, a UUID, a number, `ord_2026/11/0001`): every order it names can be followed,
 * fetched and cancelled with the order commands, and every command the CLI suggests for it
 * is one it takes. An id the server does not know is the server's to answer (404), with a
 * hint for a reference typed where the id goes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { cliEnvFor, sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const TRACE = 'd'.repeat(32);
const h = { 'x-trace-id': TRACE };
const CODE = 'QX7K2MZ9PL4W';

/** The id the server gives the next order, as it writes it in JSON (a string, or a number). */
let issue: () => string | number;
/** Orders the server knows, by id, with how often each was read. */
const orders = new Map<string, number>();

function order(id: string | number, status: string): Record<string, unknown> {
  return {
    order_id: id,
    status,
    items: [{ product_id: 'p', denomination: 25, quantity: 1 }],
    total_amount: 25,
    currency: 'USD',
    reference: null,
    fulfilled_from: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    vouchers:
      status === 'DELIVERED'
        ? [{ voucher_id: 'V-1', product_id: 'p', denomination: 25, expiry: '2027-01-01', status: 'ISSUED', code_last4: CODE.slice(-4) }]
        : [],
    timeline: [],
  };
}

const PRODUCT = {
  product_id: 'p',
  name: 'P',
  category_id: 'c',
  vendor: 'v',
  currency: 'USD',
  countries: ['US'],
  denominations: [25],
  expiry_policy: { type: 'none' },
  availability: { status: 'in_stock', cached: {} },
};

let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[], configDir?: string): Promise<CliResult> =>
  runCli(argv, { env, configDir, overrides: { clock: quickClock() } });
const create = ['orders', 'create', '--product', 'p', '--denomination', '25'];

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const [path, query] = req.target.split('?') as [string, string | undefined];
    if (req.method === 'POST' && path === '/api/v1/orders') {
      const id = issue();
      orders.set(String(id), 0);
      return sendJson(res, 202, order(id, 'PENDING'), h);
    }
    if (path === '/api/v1/products') return sendJson(res, 200, { data: [PRODUCT], has_more: false, next_cursor: null }, h);
    if (path === '/api/v1/products/p') return sendJson(res, 200, PRODUCT, h);
    if (path === '/api/v1/wallets')
      return sendJson(res, 200, { data: [{ currency: 'USD', available: 1000, reserved: 0, updated_at: '2026-01-01T00:00:00Z' }] }, h);
    if (path === '/api/v1/transactions') {
      const id = new URLSearchParams(query).get('order_id');
      return sendJson(res, 200, { data: [], has_more: false, next_cursor: null, order_id: id }, h);
    }
    const m = /^\/api\/v1\/orders\/([^/]+)(\/vouchers|\/cancel)?$/.exec(path);
    const id = m ? decodeURIComponent(m[1]!) : undefined;
    if (id === undefined || !orders.has(id)) return sendError(res, 404, 'NotFound', 'NOT_FOUND', `Order ${id ?? path} does not exist`, h);
    // Codes once the order was seen delivered (read twice), none before.
    const delivered = orders.get(id)! >= 2;
    if (m![2] === '/vouchers')
      return sendJson(
        res,
        200,
        {
          order_id: id,
          data: delivered ? [{ voucher_id: 'V-1', product_id: 'p', denomination: 25, expiry: '2027-01-01', code: CODE }] : [],
        },
        h,
      );
    if (m![2] === '/cancel') return sendJson(res, 200, order(id, 'REFUNDED'), h);
    const reads = orders.get(id)! + 1;
    orders.set(id, reads);
    return sendJson(res, 200, order(id, reads > 1 ? 'DELIVERED' : 'PENDING'), h);
  });
  env = cliEnvFor(server);
});
beforeEach(() => {
  orders.clear();
  server.requests.length = 0;
});
afterAll(async () => {
  await server.close();
});

/** A command as a hint prints it (`vouchers … 'A 981'`), as the words a POSIX shell reads from it. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const m of command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return words;
}

/** The command after `label` on a line of stderr, without its leading `vouchers`. */
function suggested(stderr: string, label: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith(label));
  expect(line, stderr).toBeDefined();
  const words = shellWords(line!.slice(label.length));
  expect(words[0]).toBe('vouchers');
  return words.slice(1);
}

const targets = () => server.requests.map((r) => `${r.method} ${r.target}`);

describe.each([
  ['digits', '12345', '12345'],
  ['a number in JSON', 98123, '98123'],
  ['letters and a dash', 'A-981', 'A-981'],
  ['a UUID', '3f2a9c4e-8b1d-4e7a-9c2b-1d5e6f7a8b9c', '3f2a9c4e-8b1d-4e7a-9c2b-1d5e6f7a8b9c'],
  ['a space', 'A 981', 'A%20981'],
  ['a slash', 'ord_2026/11/0001', 'ord_2026%2F11%2F0001'],
])('an order id with %s', (_, issued, encoded) => {
  const id = String(issued);

  it('orders create suggests a follow command that it takes: wait, get, codes --codes-out, cancel all reach the order', async () => {
    issue = () => issued;
    const made = await cli(create);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`order_id\t${id}\n`);
    const follow = suggested(made.stderr, 'Follow it: ');
    expect(follow).toEqual(['orders', 'wait', id]);
    const waited = await cli(follow);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(targets()).toContain(`GET /api/v1/orders/${encoded}`);

    const got = await cli(['orders', 'get', id]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(`order_id\t${id}\n`);

    const file = join(tempConfigDir(), 'codes.csv');
    const codes = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(codes.code, codes.stderr).toBe(0);
    expect(codes.stdout + codes.stderr).not.toContain(CODE);
    expect(readFileSync(file, 'utf8')).toContain(`${id},V-1,p,25,2027-01-01,${CODE}`);
    expect(targets()).toContain(`GET /api/v1/orders/${encoded}/vouchers`);

    const cancelled = await cli(['orders', 'cancel', id, '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stderr).toContain(`Order ${id} REFUNDED`);
    expect(targets()).toContain(`POST /api/v1/orders/${encoded}/cancel`);

    const txns = await cli(['transactions', 'list', '--order', id]);
    expect(txns.code, txns.stderr).toBe(0);
    expect(server.requests.at(-1)!.target).toBe(`/api/v1/transactions?${new URLSearchParams({ order_id: id }).toString()}`);
  });

  it('orders codes before delivery: exit 8, and the commands its hint suggests name the order as issued, unmasked', async () => {
    issue = () => issued;
    await cli(create);
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(8);
    const hint = /hint\s+wait for it: (.*); then fetch them: (.*)$/m.exec(r.stderr);
    expect(hint, r.stderr).not.toBeNull();
    expect(shellWords(hint![1]!)).toEqual(['vouchers', 'orders', 'wait', id]);
    expect(shellWords(hint![2]!)).toEqual(['vouchers', 'orders', 'codes', id, '--codes-out', file]);
    orders.set(id, 0);
    const json = await cli(['orders', 'codes', id, '--codes-out', file, '--json']);
    expect(json.code, json.stderr).toBe(8);
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!).error.hint).toContain(`orders codes ${id.includes(' ') ? `'${id}'` : id} `);
  });

  it('orders create --wait follows it to DELIVERED and fetches its codes: exit 0', async () => {
    issue = () => issued;
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await cli([...create, '--wait', '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(readFileSync(file, 'utf8')).toContain(CODE);
  });
});

describe('a bulk run against such a server', () => {
  it('the results file and the journal name each order as issued; each can be followed; --resume orders nothing again', async () => {
    let n = 0;
    issue = () => `A-${++n}`;
    const dir = tempConfigDir();
    const rows = join(dir, 'rows.csv');
    const results = join(dir, 'results.csv');
    writeFileSync(rows, 'product_id,denomination,quantity\np,25,1\np,25,1\n');
    const r = await cli(['orders', 'create', '--from', rows, '--results', results, '--yes'], dir);
    expect(r.code, r.stderr).toBe(0);
    const ids = readFileSync(results, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[1]);
    expect(ids.sort()).toEqual(['A-1', 'A-2']);
    for (const id of ids) {
      const waited = await cli(['orders', 'wait', id!], dir);
      expect(waited.code, waited.stderr).toBe(0);
    }
    const batch = /bat_[0-9a-f]+/.exec(r.stdout)![0];
    const posts = server.requests.filter((q) => q.method === 'POST').length;
    const again = await cli(['orders', 'create', '--resume', batch, '--yes'], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^skipped\t2\b/m);
    expect(server.requests.filter((q) => q.method === 'POST').length).toBe(posts);
  });
});

describe('what an order command refuses, and what it sends for the server to judge', () => {
  it.each([
    ['', 'it is empty'],
    ['ord_', 'nothing follows ord_'],
    ['ord_98\u00071234', 'an order id holds no control characters'],
  ])('%j: a usage error (exit 2), nothing sent', async (id, why) => {
    for (const verb of ['get', 'wait', 'codes', 'cancel']) {
      const r = await cli(['orders', verb, id, ...(verb === 'cancel' ? ['--yes'] : [])]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`is not an order id: ${why}`);
      expect(r.stderr).toContain('vouchers orders list shows yours');
    }
    const t = await cli(['transactions', 'list', '--order', id]);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain(`--order ${JSON.stringify(id)} is not an order id`);
    expect(server.requests).toEqual([]);
  });

  it('a reference typed where the id goes: sent, the 404 (exit 4) says how to find the order by its reference', async () => {
    const r = await cli(['orders', 'get', 'invoice-77']);
    expect(r.code, r.stderr).toBe(4);
    expect(targets()).toEqual(['GET /api/v1/orders/invoice-77']);
    expect(r.stderr).toContain(
      "check the id: vouchers orders list shows yours (another partner's are not visible to you); if invoice-77 is the reference you gave the order, vouchers orders list --reference invoice-77 finds it",
    );
    const codes = await cli(['orders', 'codes', 'invoice-77']);
    expect(codes.code, codes.stderr).toBe(4);
    expect(codes.stderr).toContain('vouchers orders list --reference invoice-77 finds it');
  });

  it("a prefix in capitals is sent as typed (it may be the server's own id); a 404 suggests the lower-case one", async () => {
    const r = await cli(['orders', 'get', 'ORD_7']);
    expect(r.code, r.stderr).toBe(4);
    expect(targets()).toEqual(['GET /api/v1/orders/ORD_7']);
    expect(r.stderr).toContain('start with ord_ in lower case: vouchers orders get ord_7');
    const codes = await cli(['orders', 'codes', 'ORD_7']);
    expect(codes.stderr).toContain('start with ord_ in lower case: vouchers orders codes ord_7');
    issue = () => 'ORD_8';
    await cli(create);
    const own = await cli(['orders', 'get', 'ORD_8']);
    expect(own.code, own.stderr).toBe(0);
  });

  it('an id of dots never names another path: sent encoded', async () => {
    const r = await cli(['orders', 'cancel', '..', '--yes']);
    expect(r.code, r.stderr).toBe(4);
    expect(targets()).toContain('POST /api/v1/orders/%2E%2E/cancel');
    expect(targets().every((t) => t.includes('/orders/%2E%2E'))).toBe(true);
  });
});

describe('events list --order with such an id', () => {
  it('lists the stored events of that order, its id written in the payload as a string or a number', async () => {
    const dir = tempConfigDir();
    const stored = (n: number, orderId: unknown) =>
      JSON.stringify({
        received_at: `2026-11-22T08:0${n}:00.000Z`,
        envelope: {
          event: 'order.created',
          event_id: `evt_${n}`,
          created_at: '2026-11-22T08:00:00Z',
          data: { order_id: orderId, status: 'PENDING', total_amount: 25, currency: 'USD', reference: null },
        },
      });
    writeFileSync(join(dir, 'events.ndjson'), [stored(1, 'A-981'), stored(2, 98123), stored(3, 'ord_1')].join('\n') + '\n', {
      mode: 0o600,
    });
    for (const [id, event] of [
      ['A-981', 'evt_1'],
      ['98123', 'evt_2'],
    ]) {
      const r = await cli(['events', 'list', '--order', id!, '--json'], dir);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { event_id: string }[]).map((e) => e.event_id)).toEqual([event]);
    }
  });
});
