/**
 * --debug prints each attempt's request (method, URL, headers, body) and answer (status,
 * headers, body) on stderr, for support asking what the CLI sent: the API secret, the
 * signature, credentials, voucher codes, pins and card numbers always masked, --reveal or
 * not (the command prints a revealed code; the dump never does); a long body cut with a
 * line saying how much was left out; text a terminal may act on escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { DEBUG_BODY_MAX } from '../../src/core/http/debug-dump.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox, issuedCodes } from './orders-helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await fastSandbox();
});
afterAll(async () => {
  await sb.close();
});

/** The stderr lines --debug marked. */
const debugLines = (stderr: string): string =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('[debug] '))
    .join('\n');

describe('--debug against the sandbox', () => {
  it('prints the request and the answer with their bodies, codes, pins, the secret and the signature masked, even with --reveal', async () => {
    const configDir = tempConfigDir();
    const env = envOf(sb);
    const r = await runCli(
      ['--debug', 'orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reference', 'dbg-1', '--reveal', '--json'],
      { env, configDir },
    );
    expect(r.code).toBe(0);
    const order = JSON.parse(r.stdout) as { order_id: string; vouchers: { code: string; pin: string }[] };
    const code = order.vouchers[0]!.code;
    // The command prints the code it was asked to reveal; the dump never does.
    expect(code).not.toContain('•');
    const dump = debugLines(r.stderr);
    expect(dump).toContain('[debug] > POST http://127.0.0.1:');
    expect(dump).toContain('"reference": "dbg-1"');
    expect(dump).toContain('"product_id": "sbx-instant"');
    expect(dump).toMatch(/\[debug\] > idempotency-key: [0-9a-f-]{36}/);
    expect(dump).toContain('[debug] > x-api-secret: [redacted]');
    expect(dump).toMatch(/\[debug\] > x-signature: t=\d+,v1=\[redacted\]/);
    expect(dump).toContain('[debug] < HTTP 201');
    expect(dump).toContain(`"order_id": "${order.order_id}"`);
    expect(dump).toContain(`"code": "••••••••${code.slice(-4)}"`);
    expect(dump).toContain('"pin": "••••"');
    expect(r.stderr).not.toContain(code);
    expect(order.vouchers[0]!.pin).toMatch(/^\d+$/);
    expect(r.stderr).not.toContain(`"pin": "${order.vouchers[0]!.pin}"`);
    expect(r.stderr).not.toContain(sb.apiSecret);
    expect(r.stderr).not.toMatch(/v1=[0-9a-f]{16,}/);
  });

  it('masks what the secure code endpoint lists, and prints nothing of the kind without --debug', async () => {
    const configDir = tempConfigDir();
    const env = envOf(sb);
    const made = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], { env, configDir });
    const id = (JSON.parse(made.stdout) as { order_id: string }).order_id;
    const codes = await runCli(['--debug', 'orders', 'codes', id, '--reveal', '--json'], { env, configDir });
    expect(codes.code).toBe(0);
    expect(debugLines(codes.stderr)).toContain(`[debug] > GET http://127.0.0.1:${new URL(sb.baseUrl).port}/api/v1/orders/${id}/vouchers`);
    expect(debugLines(codes.stderr)).toContain('[debug] < HTTP 200');
    for (const c of issuedCodes(sb)) expect(codes.stderr).not.toContain(c);
    const quiet = await runCli(['orders', 'get', id, '--json'], { env, configDir });
    expect(quiet.stderr).not.toContain('[debug]');
  });
});

describe('--debug with answers of any shape', () => {
  let server: LoopbackServer;
  const SECRET = 'sk_test_debug_bodies_secret';
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.target.startsWith('/api/v1/big'))
        return sendJson(res, 200, { data: Array.from({ length: 400 }, (_, i) => ({ id: `row_${i}`, note: 'x'.repeat(40) })) });
      if (req.target.startsWith('/api/v1/html')) {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(`<h1>Bad gateway</h1>\n\u001b[31mred\u001b[0m voucher X7K2-Q9ZT-4411 echo ${SECRET}`);
        return;
      }
      if (req.target.startsWith('/api/v1/webhooks'))
        return sendJson(res, 200, { data: { webhook_id: 'wh_1', key: 'plainkey-1234567890' } });
      if (req.target.startsWith('/api/v1/reconciliation/'))
        return sendJson(res, 200, {
          date: '2026-11-30',
          drifts: [{ order_id: 'ord_1', our_allocation: 'ALLOC-1111-2222', vendor_record: 'VEND-3333-4444' }],
        });
      sendJson(res, 200, {
        card: { number: '4111111111111111', pin: '9876' },
        redemption_code: 'RDM-5555-6666-7777',
        signing_secret: 'whsec_abcdefghijklmnopqrstuvwx',
        echoed: SECRET,
      });
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const env = () => ({ VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_debug', VOUCHERS_API_SECRET: SECRET, NO_COLOR: '1' });

  it('masks codes, card numbers, pins and secrets under any name, and a secret typed into the body sent', async () => {
    const r = await runCli(['--debug', 'api', 'POST', '/things', '-d', `{"note":"mine ${SECRET}","pin":"1234"}`, '--reveal'], {
      env: env(),
    });
    expect(r.code).toBe(0);
    const dump = debugLines(r.stderr);
    expect(dump).toMatch(/"note": "mine [^"]*…[^"]*"/);
    expect(dump).toContain('"redemption_code": "••••••••7777"');
    expect(dump).not.toContain('4111111111111111');
    expect(dump).not.toContain('9876');
    expect(dump).not.toContain('"pin": "1234"');
    expect(dump).not.toContain('whsec_abcdefghijklmnopqrstuvwx');
    expect(r.stderr).not.toContain(SECRET);
    // --reveal prints the answer's codes on stdout, as asked.
    expect(r.stdout).toContain('RDM-5555-6666-7777');
  });

  it("masks the webhook endpoint's bare key and a reconciliation drift's vouchers", async () => {
    const hook = await runCli(['--debug', 'api', 'GET', '/webhooks', '--reveal'], { env: env() });
    expect(hook.code).toBe(0);
    expect(debugLines(hook.stderr)).toContain('"webhook_id": "wh_1"');
    expect(hook.stderr).not.toContain('plainkey-1234567890');
    const report = await runCli(['--debug', 'api', 'GET', '/reconciliation/2026-11-30', '--reveal'], { env: env() });
    expect(report.code).toBe(0);
    expect(debugLines(report.stderr)).toContain('"order_id": "ord_1"');
    expect(report.stderr).not.toContain('ALLOC-1111-2222');
    expect(report.stderr).not.toContain('VEND-3333-4444');
    expect(report.stdout).toContain('ALLOC-1111-2222');
  });

  it('cuts a long body, saying how much was left out, and escapes what a terminal would act on', async () => {
    const big = await runCli(['--debug', 'api', 'GET', '/big'], { env: env() });
    expect(big.code).toBe(0);
    const cut = /\[debug\] … ([\d,]+) more characters of the body not shown \(([\d,]+) in all\)/.exec(big.stderr);
    expect(cut).not.toBeNull();
    const [left, all] = [Number(cut![1]!.replace(/,/g, '')), Number(cut![2]!.replace(/,/g, ''))];
    expect(all - left).toBe(DEBUG_BODY_MAX);
    expect(big.stderr).toContain('"id": "row_0"');
    expect(big.stderr).not.toContain('"id": "row_399"');

    const html = await runCli(['--debug', '--max-retries', '0', 'api', 'GET', '/html'], { env: env() });
    expect(html.code).toBe(7);
    const dump = debugLines(html.stderr);
    expect(dump).toContain('[debug] < HTTP 502');
    expect(dump).toContain('[debug] <h1>Bad gateway</h1>');
    expect(dump).toContain('\\u001b[31mred');
    expect(dump).not.toContain('\u001b');
    expect(dump).not.toContain('X7K2-Q9ZT-4411');
    expect(html.stderr).not.toContain(SECRET);
  });
});
