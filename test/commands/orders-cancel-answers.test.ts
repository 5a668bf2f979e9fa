/**
 * orders cancel against answers the sandbox does not give: a connection dropped after the
 * request went out (the generic hint named --idempotency-key, which cancel does not take),
 * and a status CANCELLED without a refund (it said "the debit is refunded").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';
import { configWith, quickClock } from '../helpers/sandbox.js';

const DROPPED = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CA';
const CANCELLED = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CB';
const CANCELED = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CC';
const FAILED = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CD';
const FAILED_REFUSED = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE';
let server: LoopbackServer;
let dir: string;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.target.includes(DROPPED)) {
      res.socket?.destroy();
      return;
    }
    if (req.target.includes(FAILED_REFUSED)) {
      if (req.method === 'POST')
        sendJson(res, 409, {
          error: { name: 'OrderNotCancellable', code: 'ORDER_NOT_CANCELLABLE', message: 'only a PENDING order can be cancelled' },
        });
      else sendJson(res, 200, { order_id: FAILED_REFUSED, status: 'FAILED', total_amount: 10, currency: 'USD', vouchers: [] });
      return;
    }
    if (req.target.includes(FAILED)) {
      sendJson(res, 200, { order_id: FAILED, status: 'FAILED', total_amount: 10, currency: 'USD', vouchers: [] });
      return;
    }
    if (req.target.includes(CANCELED)) {
      sendJson(res, 200, { order_id: CANCELED, status: 'CANCELED', total_amount: 10, currency: 'USD', vouchers: [] });
      return;
    }
    sendJson(res, 200, { order_id: CANCELLED, status: 'CANCELLED', total_amount: 10, currency: 'USD', vouchers: [] });
  });
  dir = await configWith('px', { base_url: server.baseUrl, api_key: 'pk_px_123456789', api_secret: 'sk_px_secret_123456', max_retries: 0 });
});
afterAll(() => server.close());

const cli = (argv: string[]) => runCli(argv, { configDir: dir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

describe('orders cancel', () => {
  it('in a CI job on a pseudo-terminal: does not ask (nobody would answer), sends nothing, and says to add --yes', async () => {
    const before = server.requests.length;
    const r = await runCli(['--profile', 'px', 'orders', 'cancel', CANCELLED], {
      configDir: dir,
      tty: true,
      stdinTTY: true,
      env: { NO_COLOR: '1', CI: 'true' },
      overrides: { clock: quickClock() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not asking: this is a CI job (CI is set)');
    expect(r.stderr).toContain('--yes');
    expect(r.stderr).not.toContain('[y/N]');
    expect(server.requests.length).toBe(before);
  });

  it('its answer lost: says how to find out, with --profile, and never names an --idempotency-key it does not take', async () => {
    const r = await cli(['--profile', 'px', 'orders', 'cancel', DROPPED, '--yes']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(`see whether it was cancelled: vouchers --profile px orders get ${DROPPED} (cancelling again is safe)`);
    expect(r.stderr).not.toContain('--idempotency-key');
  });

  it('an answer of CANCELLED does not claim the debit is refunded', async () => {
    const r = await cli(['orders', 'cancel', CANCELLED, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Order ${CANCELLED} CANCELLED; the answer does not say the debit is refunded yet`);
    expect(r.stderr).not.toContain('the debit is refunded to');
  });

  it('an order that ended FAILED (final, no voucher) is never said to have its debit refunded: the status does not say so', async () => {
    const wait = await cli(['orders', 'wait', FAILED, '--timeout', '2s']);
    expect(wait.code, wait.stderr).toBe(5);
    expect(wait.stderr).toContain(
      `order ${FAILED} ended FAILED: no voucher was issued, and the 10.00 USD debit is to be refunded (the order does not say REFUNDED yet)`,
    );
    expect(wait.stderr).not.toContain('debit is refunded');
    const cancel = await cli(['orders', 'cancel', FAILED, '--yes']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stderr).toContain(`Order ${FAILED} FAILED; the answer does not say the debit is refunded yet`);
    expect(cancel.stderr).not.toContain('the debit is refunded to');
  });

  it('cancel refused (409) of an order that ended FAILED: says it ended without vouchers, not that it was cancelled before', async () => {
    const r = await cli(['orders', 'cancel', FAILED_REFUSED, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Order ${FAILED_REFUSED} is already FAILED: it ended without vouchers, nothing was done now`);
    expect(r.stderr).not.toContain('cancelled before');
  });

  it('orders wait on an order left CANCELED (another spelling): says it ended so, not "without reaching CANCELED", nor that the debit is refunded', async () => {
    const r = await cli(['orders', 'wait', CANCELED, '--timeout', '2s']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`order ${CANCELED} ended CANCELED: no voucher was issued, and the 10.00 USD debit is to be refunded`);
    expect(r.stderr).not.toContain('without reaching');
  });
});
