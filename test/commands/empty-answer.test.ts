/**
 * A 2xx answer with nothing to show where one resource was asked for (an empty 200, a 204, a
 * body that is not JSON): the command says so on stderr with the status and the trace ID and
 * exits 0 (the request succeeded), instead of printing an empty record (a lone `value` row).
 * (`webhooks show` reads an empty answer as "none registered": webhooks-none-listed.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnvFor, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const TRACE = 'Root=1-6745a1b2-5f1c0d2e9a8b7c6d5e4f3a2b';
let answer: { status: number; body: string } = { status: 204, body: '' };
let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => {
    res.writeHead(answer.status, { 'x-trace-id': TRACE, ...(answer.body ? { 'content-type': 'application/json' } : {}) });
    res.end(answer.body);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const COMMANDS: [string[], string][] = [
  [['products', 'get', 'sku-1'], 'GET /products/sku-1'],
  [['orders', 'get', 'ord_1'], 'GET /orders/ord_1'],
  [['reconciliation', 'get', '2026-11-21'], 'GET /reconciliation/2026-11-21'],
];

describe('a 2xx answer with nothing to show', () => {
  for (const [argv, request] of COMMANDS) {
    it(`${argv.join(' ')}: HTTP 204, no body`, async () => {
      answer = { status: 204, body: '' };
      const r = await runCli(argv, { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`The server answered ${request} with HTTP 204 and no body: nothing to show · trace ${TRACE}`);
    });
  }

  it('an empty 200 with --json: null on stdout, the notice on stderr', async () => {
    answer = { status: 200, body: '' };
    const r = await runCli(['products', 'get', 'sku-1', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toBeNull();
    expect(r.stderr).toContain('"code":"NO_BODY"');
    expect(r.stderr).toContain(TRACE);
  });

  it('a 200 whose body is not JSON', async () => {
    answer = { status: 200, body: 'OK' };
    const r = await runCli(['products', 'get', 'sku-1'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`with HTTP 200 and a body that is not JSON: nothing to show · trace ${TRACE}`);
  });
});
