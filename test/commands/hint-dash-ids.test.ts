/**
 * A server may issue ids of any shape: the commands that hints suggest for an order whose
 * id starts with `-` write it after `--` (every flag before it), so that pasting them
 * follows that order instead of failing on an unknown option.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';
import { suggestedCommand } from '../../src/core/output/next-page.js';
import { operand } from '../../src/core/output/shell-quote.js';
import { contractOrder } from '../helpers/contract-order.js';

const ID = '-123';
const order = (status: string, vouchers: unknown[] = []) => contractOrder({ order_id: ID, status, vouchers });
const voucher = { voucher_id: 'vch_1', product_id: 'p1', denomination: 25, expiry: null, status: 'ISSUED', code_last4: '9876' };

let server: LoopbackServer;
const cli = (argv: string[], tty = false): Promise<CliResult> =>
  runCli(argv, { env: cliEnvFor(server), tty, overrides: { clock: quickClock() } });

/** The words of a suggested command after `vouchers` (the ones here need no shell quoting). */
const argvOf = (command: string): string[] => command.split(' ').slice(1);

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = decodeURIComponent(req.target.split('?')[0]!);
    if (req.method === 'POST' && path === '/api/v1/orders') return sendJson(res, 202, order('PENDING'));
    if (req.method === 'GET' && path === `/api/v1/orders/${ID}`) return sendJson(res, 200, order('DELIVERED', [voucher]));
    res.writeHead(404);
    res.end();
  });
});
afterAll(async () => {
  await server.close();
});

describe('suggestedCommand with an id that starts with -', () => {
  it('writes the ids after --, every flag before it; other ids stay where they are', () => {
    expect(suggestedCommand({ profile: 'p' }, ['orders', 'codes', operand('-1 2'), '--codes-out', 'c.csv'], [['--reveal', true]])).toBe(
      "vouchers --profile p orders codes --codes-out c.csv --reveal -- '-1 2'",
    );
    expect(suggestedCommand(undefined, ['orders', 'codes', operand('ord_1'), '--codes-out', 'c.csv'])).toBe(
      'vouchers orders codes ord_1 --codes-out c.csv',
    );
  });
});

describe('hints naming an order whose id starts with -', () => {
  it('orders create: "Follow it" writes orders wait -- ID, and that command follows the order', async () => {
    const placed = await cli(['orders', 'create', '--product', 'p1', '--denomination', '25']);
    expect(placed.code, placed.stderr).toBe(0);
    const follow = /Follow it: (vouchers orders wait -- -123)\n/.exec(placed.stderr)?.[1];
    expect(follow, placed.stderr).toBeDefined();
    const waited = await cli(argvOf(follow!));
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^order_id\t-123$/m);
  });

  it('orders get: the command that fetches the codes puts its flags before -- ID', async () => {
    const got = await cli(['orders', 'get', '--', ID], true);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stderr).toContain('to fetch them through the secure endpoint: vouchers orders codes --reveal -- -123\n');
  });
});
