/**
 * A real service may name a voucher's code only `card`, `key`, `value` or `number`: names
 * that mean something else elsewhere, and a code in a voucher record (an entry of
 * `vouchers`, a `voucher` object, a record with a `voucher_id`). There a string under such
 * a name is the code: masked everywhere codes are (orders, the code endpoint, vouchers api,
 * lists, reconciliation, the listener's display), read as the code for the codes file and
 * --reveal. A `value` that is an amount is the denomination, and stays; outside a voucher
 * record the names keep their meaning.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskCodes } from '../../src/core/output/mask.js';
import { maskText, rememberShown } from '../../src/core/output/mask-text.js';
import { codeFieldsIn, redactCodes } from '../../src/listener/redact.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';
import { contractOrder } from '../helpers/contract-order.js';

const ORDER = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CF';
const CODES = ['KEY-LEAK-AAAA-1111', 'CARD-LEAK-BBBB-2222', 'VALUE-LEAK-CCCC-3333', 'NUMBER-LEAK-DDDD-4444'];
const vouchers = [
  { voucher_id: 'vch_1', product_id: 'p1', denomination: 25, expiry: '2027-12-31', status: 'ISSUED', key: CODES[0] },
  { voucher_id: 'vch_2', product_id: 'p1', denomination: 25, expiry: '2027-12-31', status: 'ISSUED', card: CODES[1] },
  // No voucher_id: a `vouchers` entry all the same; its `value` a code, not an amount.
  { product_id: 'p1', expiry: '2027-12-31', status: 'ISSUED', value: CODES[2], face_value: 25 },
  { voucher_id: 'vch_4', product_id: 'p1', value: 25, expiry: '2027-12-31', status: 'ISSUED', number: CODES[3] },
];
const order = contractOrder({
  order_id: ORDER,
  items: [{ product_id: 'p1', denomination: 25, quantity: 4 }],
  total_amount: 100,
  vouchers,
});

let server: LoopbackServer;
let env: Record<string, string>;
let dir: string;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });
const leaked = (r: CliResult) => CODES.filter((c) => (r.stdout + r.stderr).includes(c));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'record-names-'));
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') return sendJson(res, 201, order);
    if (req.method === 'GET' && path === '/api/v1/orders') return sendJson(res, 200, { data: [order], has_more: false, next_cursor: null });
    if (req.method === 'GET' && path === `/api/v1/orders/${ORDER}`) return sendJson(res, 200, order);
    if (req.method === 'GET' && path === `/api/v1/orders/${ORDER}/vouchers`) return sendJson(res, 200, { order_id: ORDER, data: vouchers });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a voucher whose code is named card, key, value or number', () => {
  it('is masked in every output of the order commands and vouchers api', async () => {
    const runs = [
      ['orders', 'create', '--product', 'p1', '--denomination', '25', '--quantity', '4'],
      ['orders', 'create', '--product', 'p1', '--denomination', '25', '--quantity', '4', '--json'],
      ['orders', 'get', ORDER],
      ['orders', 'get', ORDER, '--json'],
      ['orders', 'get', ORDER, '--fields', 'vouchers'],
      ['orders', 'wait', ORDER, '--json'],
      ['orders', 'list', '--json'],
      ['orders', 'list', '--output', 'ndjson'],
      ['orders', 'list', '--output', 'csv', '--fields', 'order_id,vouchers'],
      ['orders', 'codes', ORDER],
      ['orders', 'codes', ORDER, '--json'],
      ['orders', 'codes', ORDER, '--output', 'csv'],
      ['api', 'GET', `/orders/${ORDER}`],
      ['api', 'GET', `/orders/${ORDER}/vouchers`],
      ['api', 'GET', '/orders', '--jmespath', 'data[0].vouchers'],
    ];
    for (const argv of runs) {
      const r = await cli(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(leaked(r), argv.join(' ')).toEqual([]);
    }
    const json = JSON.parse((await cli(['orders', 'get', ORDER, '--json'])).stdout) as { vouchers: Record<string, unknown>[] };
    expect(json.vouchers.map((v) => [v.key ?? v.card ?? v.number ?? v.value])).toEqual([
      ['••••••••1111'],
      ['••••••••2222'],
      ['••••••••3333'],
      ['••••••••4444'],
    ]);
    // A `value` that is an amount is the denomination: shown as it is.
    expect(json.vouchers[3]!.value).toBe(25);
    const api = JSON.parse((await cli(['api', 'GET', `/orders/${ORDER}`, '--json'])).stdout) as { vouchers: Record<string, unknown>[] };
    expect(api.vouchers[3]).toMatchObject({ value: 25, number: '••••••••4444' });
  });

  it('is read as the code: the table shows it masked, --reveal and --codes-out in full, and a code value is no denomination', async () => {
    const table = await cli(['orders', 'codes', ORDER]);
    expect(table.stdout).toContain('••••••••1111');
    expect(table.stdout).toContain('••••••••3333');
    const revealed = await cli(['orders', 'codes', ORDER, '--reveal']);
    for (const c of CODES) expect(revealed.stdout).toContain(c);
    const file = join(dir, 'codes.csv');
    const r = await cli(['orders', 'codes', ORDER, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(leaked(r)).toEqual([]);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.slice(1).map((l) => l.split(',').slice(3, 6))).toEqual([
      ['25', '2027-12-31', CODES[0]],
      ['25', '2027-12-31', CODES[1]],
      ['25', '2027-12-31', CODES[2]],
      ['25', '2027-12-31', CODES[3]],
    ]);
  });
});

describe('the names card, key, value and number in and out of voucher records', () => {
  it('are masked as codes only in a voucher record, and not a value that is an amount', () => {
    const body = {
      key: 'page-2',
      value: 'not a voucher',
      card: 'visa',
      voucher: { key: 'VOUCHER-KEY-9999' },
      gift_cards: [{ card: 'GIFT-CARD-8888', value: '25.00' }],
      items: [{ voucher_id: 'vch_1', value: 'ITEM-CODE-7777' }, { value: 'plain' }],
    };
    expect(maskCodes(body)).toEqual({
      key: 'page-2',
      value: 'not a voucher',
      card: 'visa',
      voucher: { key: '••••••••9999' },
      gift_cards: [{ card: '••••••••8888', value: '25.00' }],
      items: [{ voucher_id: 'vch_1', value: '••••••••7777' }, { value: 'plain' }],
    });
    expect(maskCodes({ data: [{ key: 'KEY-1234-5678' }] }, false, { voucher: true })).toEqual({ data: [{ key: '••••••••5678' }] });
    expect(maskCodes(body, true)).toBe(body);
  });

  it("are redacted by the listener's display in a voucher record, and named where they were", () => {
    const payload = {
      event: 'order.delivered',
      data: {
        order_id: 'ord_1',
        key: 'k',
        vouchers: [{ product_id: 'p', card: 'CARD-LEAK-1', value: 10 }],
        voucher: { key: 'KEY-LEAK-2' },
      },
    };
    const r = redactCodes(payload);
    expect(JSON.stringify(r.value)).not.toContain('LEAK');
    expect(r.found).toEqual(['data.vouchers.0.card', 'data.voucher.key']);
    expect(codeFieldsIn(payload)).toEqual(r.found);
    expect(JSON.stringify(r.value)).toContain('"value":10');
    expect(JSON.stringify(r.value)).toContain('"key":"k"');
  });

  it('a code an answer carried so is masked in a later message quoting it', () => {
    rememberShown({ vouchers: [{ voucher_id: 'vch_1', key: 'MSG-KEY-LEAK-6543' }] });
    expect(maskText('MSG-KEY-LEAK-6543 was already redeemed')).not.toContain('MSG-KEY-LEAK-6543');
  });
});
