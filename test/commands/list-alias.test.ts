/**
 * `ls` is an alias of `list` for every noun that has a list (as gh and stripe take it, and
 * `profiles ls` already did): `vouchers orders ls` runs `orders list`, where it was refused
 * with a hint naming another command. Slips still go to the name (`orders lst`: list), and
 * an option typed before it is placed after it (`orders --json ls`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

const NOUNS = ['orders', 'products', 'categories', 'transactions', 'wallets', 'events', 'profiles'];

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => sendJson(res, 200, { data: [], has_more: false, next_cursor: null }));
});
afterAll(async () => {
  await server.close();
});

describe('ls, an alias of list', () => {
  for (const noun of NOUNS) {
    it(`vouchers ${noun} ls is ${noun} list`, async () => {
      const r = await runCli([noun, 'ls', '--help']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: vouchers ${noun} list\\|ls `));
    });
  }

  it('orders ls --json lists the orders, as orders list --json does', async () => {
    const r = await runCli(['orders', 'ls', '--json'], { env: cliEnvFor(server) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(server.requests.at(-1)?.target).toMatch(/^\/api\/v1\/orders(\?|$)/);
  });

  it('orders --json ls: the hint places --json after the command ls names, not after another one', async () => {
    const r = await runCli(['orders', '--json', 'ls']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--json goes after the command's name: vouchers orders list --json");
    expect(r.stderr).not.toContain('orders create');
  });

  it('a slip near both list and ls is list, the name before its alias (not "one of list, ls")', async () => {
    for (const noun of ['orders', 'profiles']) {
      const r = await runCli([noun, 'lst']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`did you mean list? see vouchers ${noun} --help`);
    }
  });
});
