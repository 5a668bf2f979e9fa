/**
 * A server's answer may quote a voucher's code in free text beside the voucher that holds it:
 * a timeline note `voucher X7K2… delivered`, a `message`. Wherever the code is masked, so is
 * every quote of it in the same answer; --reveal shows both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskCodes } from '../../src/core/output/mask.js';
import { codeFieldsIn, redactCodes } from '../../src/listener/redact.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';
import { contractOrder } from '../helpers/contract-order.js';

const ORDER = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1QC';
const CODE = 'QUOTED-CODE-AAAA-1111';
const PIN = '98765432';
const order = contractOrder({
  order_id: ORDER,
  message: `Delivered ${CODE}`,
  vouchers: [{ voucher_id: 'vch_1', product_id: 'p1', denomination: 25, expiry: '2027-12-31', status: 'ISSUED', code: CODE, pin: PIN }],
  timeline: [{ status: 'DELIVERED', at: '2026-11-29T10:00:00Z', note: `voucher ${CODE} (pin ${PIN}) delivered` }],
});

let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });
const leaks = (r: CliResult) => [CODE, PIN].filter((c) => (r.stdout + r.stderr).includes(c));

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') return sendJson(res, 201, order);
    if (req.method === 'GET' && path === '/api/v1/orders') return sendJson(res, 200, { data: [order], has_more: false, next_cursor: null });
    if (req.method === 'GET' && path === `/api/v1/orders/${ORDER}`) return sendJson(res, 200, order);
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a code quoted in the free text of the answer that holds it', () => {
  it('is masked in every output of the order commands and vouchers api', async () => {
    const runs = [
      ['orders', 'create', '--product', 'p1', '--denomination', '25'],
      ['orders', 'create', '--product', 'p1', '--denomination', '25', '--json'],
      ['orders', 'get', ORDER],
      ['orders', 'get', ORDER, '--json'],
      ['orders', 'get', ORDER, '--fields', 'timeline,message'],
      ['orders', 'wait', ORDER, '--json'],
      ['orders', 'list', '--json'],
      ['orders', 'list', '--output', 'ndjson'],
      ['api', 'GET', `/orders/${ORDER}`],
      ['api', 'GET', '/orders'],
    ];
    for (const argv of runs) {
      const r = await cli(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(leaks(r), argv.join(' ')).toEqual([]);
    }
    const json = JSON.parse((await cli(['orders', 'get', ORDER, '--json'])).stdout) as typeof order;
    expect(json.timeline[0]!.note).toBe('voucher ••••••••1111 (pin ••••) delivered');
    expect(json.message).toBe('Delivered ••••••••1111');
  });

  it('is shown with --reveal, as the code itself is', async () => {
    for (const argv of [
      ['orders', 'create', '--product', 'p1', '--denomination', '25', '--json', '--reveal'],
      ['api', 'GET', `/orders/${ORDER}`, '--json', '--reveal'],
    ]) {
      const r = await cli(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      const json = JSON.parse(r.stdout) as typeof order;
      expect(json.timeline[0]!.note).toBe(`voucher ${CODE} (pin ${PIN}) delivered`);
      expect(json.vouchers[0]!.code).toBe(CODE);
    }
  });

  it('leaves text quoting no code of the value as it is, and a short pin unquoted', () => {
    expect(maskCodes({ code: 'ABCDEF-123456', note: 'order ord_1 for ACME-2024 placed', pin: '1234', memo: 'pin 1234' })).toEqual({
      code: '••••••••3456',
      note: 'order ord_1 for ACME-2024 placed',
      pin: '••••',
      // A pin shorter than a code's least length would mask every such number: left.
      memo: 'pin 1234',
    });
    expect(
      maskCodes({ vouchers: [{ code: 'LONG-CODE-9999' }, { code: 'LONG-CODE-99' }], note: 'LONG-CODE-9999 and LONG-CODE-99' }),
    ).toEqual({
      vouchers: [{ code: '••••••••9999' }, { code: '••••••••E-99' }],
      note: '••••••••9999 and ••••••••E-99',
    });
  });

  it("is redacted where a webhook payload quotes it, in the listener's and events' display", () => {
    const payload = {
      event: 'order.delivered',
      data: {
        order_id: 'ord_1',
        vouchers: [{ voucher_id: 'vch_1', code: CODE, pin: PIN }],
        note: `voucher ${CODE} (pin ${PIN}) issued`,
        reference: 'ref-12345678',
      },
    };
    const r = redactCodes(payload);
    expect(r.value.data.note).toBe('voucher [redacted] (pin [redacted]) issued');
    expect(r.value.data.reference).toBe('ref-12345678');
    // The quote is no code field of its own: the fields named are the code's.
    expect(r.found).toEqual(['data.vouchers.0.code', 'data.vouchers.0.pin']);
    expect(codeFieldsIn(payload)).toEqual(r.found);
  });
});
