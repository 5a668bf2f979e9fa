/**
 * A server that holds a voucher's code as an object (`code: {value, type}`), a list
 * (`codes: […]`) or under a name of its own (`voucher_number`, `serial_no`, `token`,
 * `voucher: {value}`, `card: {no}`, a string `redemption`): every one is masked in every
 * output (api, --raw, --jmespath, orders get and create, table and JSON) unless revealed,
 * and the codes file gets each code's text. An object code used to crash orders get and
 * create (`code.slice is not a function`) after the order was placed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const TRACE = 'c'.repeat(32);
/** An order whose voucher holds its codes in every such shape. */
const SHAPES = JSON.parse(readFileSync(new URL('../fixtures/code-shapes.json', import.meta.url), 'utf8')) as { vouchers: unknown[] };
const VOUCHER_CODES = [
  'RAWLEAK-OBJ-1',
  'RAWLEAK-ARR-2',
  'LEAK-VN-1',
  'LEAK-SN-2',
  'LEAK-TOK-3',
  'LEAK-VV-4',
  'LEAK-CN-5',
  'LEAK-RED-6',
  'LEAK-PIN-7',
];
const SECRETS = [...VOUCHER_CODES, 'LEAK-K-TOPCODES'];
const PLACED = {
  order_id: 'ord_981234',
  status: 'DELIVERED',
  currency: 'USD',
  total_amount: 25,
  vouchers: [{ product_id: 'AMZ-US', denomination: 25, status: 'ISSUED', code: { value: 'OBJCODE-SECRET-7777', type: 'text' } }],
};

/** Vouchers given as their codes alone, a list of strings (the document does not show the entries' fields). */
const LISTED_CODES = ['LISTED-CODE-AAAA1111', 'LISTED-CODE-BBBB2222'];

let server: LoopbackServer;
let env: Record<string, string>;
let dir: string;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });
const leaked = (r: CliResult, secrets: string[]) => secrets.filter((s) => (r.stdout + r.stderr).includes(s));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'code-shapes-'));
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': TRACE };
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_1') return sendJson(res, 200, SHAPES, h);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_1/vouchers')
      return sendJson(res, 200, { order_id: 'ord_1', data: SHAPES.vouchers }, h);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_981234') return sendJson(res, 200, PLACED, h);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_listed')
      return sendJson(res, 200, { ...PLACED, order_id: 'ord_listed', vouchers: LISTED_CODES, issued_vouchers: [4711_0000_1234_5678] }, h);
    if (req.method === 'POST' && req.target === '/api/v1/orders' && req.body.includes('TOP-CODES'))
      return sendJson(res, 201, { ...PLACED, codes: ['LEAK-K-TOPCODES'] }, h);
    if (req.method === 'POST' && req.target === '/api/v1/orders') return sendJson(res, 201, PLACED, h);
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('codes of another shape or name stay masked', () => {
  it('in vouchers api, with --raw and with --jmespath', async () => {
    for (const extra of [[], ['--raw'], ['--jmespath', 'vouchers[0].code.value']]) {
      const r = await cli(['api', 'GET', '/orders/ord_1', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r, SECRETS), extra.join(' ')).toEqual([]);
    }
    const shown = await cli(['api', 'GET', '/orders/ord_1', '--reveal']);
    expect(JSON.parse(shown.stdout)).toEqual(SHAPES);
  });

  it('in orders get, as JSON and as the record and vouchers table', async () => {
    for (const extra of [['--json'], []]) {
      const r = await cli(['orders', 'get', 'ord_1', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r, SECRETS), extra.join(' ')).toEqual([]);
    }
    const plain = await cli(['orders', 'get', 'ord_1']);
    expect(plain.stdout).toContain('codes\t••••••••ODES');
    expect(plain.stdout).toContain('••••••••BJ-1');
  });

  it('orders codes masks them all, and --reveal shows every code the voucher carries', async () => {
    const masked = await cli(['orders', 'codes', 'ord_1']);
    expect(masked.code, masked.stderr).toBe(0);
    expect(leaked(masked, SECRETS)).toEqual([]);
    const shown = await cli(['orders', 'codes', 'ord_1', '--reveal']);
    expect(shown.code, shown.stderr).toBe(0);
    for (const s of VOUCHER_CODES) expect(shown.stdout, s).toContain(s);
    const file = join(dir, 'ord_1.json');
    const out = await cli(['orders', 'codes', 'ord_1', '--codes-out', file]);
    expect(out.code, out.stderr).toBe(0);
    const written = readFileSync(file, 'utf8');
    for (const s of VOUCHER_CODES) expect(written, s).toContain(s);
  });
});

describe('a code sent as an object', () => {
  it('orders create shows the order placed (masked) and writes the code text to the codes file', async () => {
    const file = join(dir, 'placed.json');
    const r = await cli(['orders', 'create', '--product', 'AMZ-US', '--denomination', '25', '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('showing it failed');
    expect(r.stdout).toContain('••••••••7777');
    expect(r.stdout + r.stderr).not.toContain('OBJCODE-SECRET');
    const rows = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
    expect(rows).toEqual([expect.objectContaining({ order_id: 'ord_981234', code: 'OBJCODE-SECRET-7777' })]);
  });

  it('orders get shows it masked (table and JSON); create --reveal shows it whole', async () => {
    const r = await cli(['orders', 'get', 'ord_981234']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('••••••••7777');
    expect(r.stdout + r.stderr).not.toContain('OBJCODE-SECRET');
    const json = await cli(['orders', 'get', 'ord_981234', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toContain('OBJCODE-SECRET');
    const shown = await cli(['orders', 'create', '--product', 'AMZ-US', '--denomination', '25', '--reveal']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('OBJCODE-SECRET-7777');
  });
});

describe("a server's own top-level field holding codes", () => {
  it('orders create --reveal (plain view) shows it whole, as it shows the vouchers; masked without --reveal', async () => {
    const argv = ['orders', 'create', '--product', 'TOP-CODES', '--denomination', '25'];
    const shown = await cli([...argv, '--reveal']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('codes\tLEAK-K-TOPCODES');
    expect(shown.stdout).toContain('OBJCODE-SECRET-7777');
    const masked = await cli(argv);
    expect(masked.code, masked.stderr).toBe(0);
    expect(masked.stdout).toContain('codes\t••••••••ODES');
    expect(masked.stdout + masked.stderr).not.toContain('LEAK-K-TOPCODES');
  });
});

describe('vouchers given as a list of their codes ({"vouchers": ["…", "…"]})', () => {
  it('are masked in orders get (JSON and table) and vouchers api, shown by api --reveal', async () => {
    for (const argv of [
      ['orders', 'get', 'ord_listed', '--json'],
      ['orders', 'get', 'ord_listed'],
      ['api', 'GET', '/orders/ord_listed'],
    ]) {
      const r = await cli(argv);
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r, [...LISTED_CODES, '4711000012345678']), argv.join(' ')).toEqual([]);
    }
    const json = await cli(['orders', 'get', 'ord_listed', '--json']);
    expect((JSON.parse(json.stdout) as { vouchers: string[] }).vouchers).toEqual(['••••••••1111', '••••••••2222']);
    const shown = await cli(['api', 'GET', '/orders/ord_listed', '--reveal']);
    expect((JSON.parse(shown.stdout) as { vouchers: string[] }).vouchers).toEqual(LISTED_CODES);
  });
});

describe('api --include over a masked body', () => {
  it('Content-Length is that of the body shown (masked, or as received with --reveal); --raw alone still masks', async () => {
    for (const extra of [['--raw'], [], ['--raw', '--reveal']]) {
      const r = await cli(['api', '-i', 'GET', '/orders/ord_1', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      const [head, ...rest] = r.stdout.split('\n\n');
      const body = rest.join('\n\n');
      const length = Number(/^content-length: (\d+)$/m.exec(head!)?.[1]);
      expect(length, extra.join(' ')).toBe(Buffer.byteLength(body));
      if (!extra.includes('--reveal')) expect(leaked(r, SECRETS), extra.join(' ')).toEqual([]);
      else expect(JSON.parse(body)).toEqual(SHAPES);
    }
  });
});
