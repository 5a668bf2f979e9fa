/**
 * `vouchers api` prints an error's body, and an error's words may quote a voucher code or a
 * secret (`card X7K2… was already redeemed`, a proxy's `redemption_code=… pin=…`): they are
 * masked as the error line under it masks them, in a JSON error's strings and in a body that
 * is not JSON; --reveal prints the body as received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const LEAKS = ['ERRCARD-LEAK-1234', 'ERR2CODE-LEAK-4321', 'ERR3-LEAK-1111', 'pin=9876'];

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (path === '/api/v1/orders/ord_1')
      return sendJson(res, 409, {
        error: { name: 'Conflict', code: 'ALREADY_REDEEMED', message: 'card ERRCARD-LEAK-1234 was already redeemed' },
      });
    if (path === '/api/v1/orders/ord_2') return sendJson(res, 422, { message: 'Voucher ERR2CODE-LEAK-4321 invalid' });
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('internal error: redemption_code=ERR3-LEAK-1111 pin=9876');
  });
});
afterAll(async () => {
  await server.close();
});

const cli = (argv: string[], tty = false): Promise<CliResult> => runCli(['api', 'GET', ...argv], { env: cliEnvFor(server), tty });

describe('vouchers api: the words of an error body', () => {
  it('are masked where they name a code or secret, piped, on a TTY, with --raw and --include', async () => {
    for (const path of ['/orders/ord_1', '/orders/ord_2', '/orders/ord_3']) {
      for (const argv of [[], ['--raw'], ['--include'], ['--json']]) {
        for (const tty of [false, true]) {
          const r = await cli([path, ...argv], tty);
          expect(r.code, r.stderr).not.toBe(0);
          expect(
            LEAKS.filter((l) => (r.stdout + r.stderr).includes(l)),
            `${path} ${argv.join(' ')} ${tty}`,
          ).toEqual([]);
          expect(r.stderr).toContain('add --reveal to print them');
        }
      }
    }
    const json = await cli(['/orders/ord_1', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { name: 'Conflict', code: 'ALREADY_REDEEMED', message: 'card ••••••••1234 was already redeemed' },
    });
    const text = await cli(['/orders/ord_3']);
    expect(text.stdout).toBe('internal error: redemption_code=••••••••1111 pin=••••');
  });

  it('--reveal prints the body as received', async () => {
    const r = await cli(['/orders/ord_3', '--reveal']);
    expect(r.stdout).toBe('internal error: redemption_code=ERR3-LEAK-1111 pin=9876');
    const json = await cli(['/orders/ord_2', '--reveal', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ message: 'Voucher ERR2CODE-LEAK-4321 invalid' });
  });
});
