/**
 * A 2xx whose body is plain text, an HTML page or empty is a success (exit 0) with a
 * contract warning saying nothing could be read and how to see the body; JSON output says
 * null, never an empty list or an order made of empty fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const BODIES: Record<string, [string, string]> = {
  '/api/v1/products': ['text/plain', 'OK all good'],
  '/api/v1/categories': ['text/html', '<html><body>maintenance</body></html>'],
  '/api/v1/orders': ['text/html', '<html><body>hi</body></html>'],
  '/api/v1/orders/ord_1': ['application/json', ''],
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const body = BODIES[req.target.split('?')[0]!];
    if (req.method === 'GET' && body) {
      res.writeHead(200, { 'content-type': body[0], 'x-trace-id': 'f'.repeat(32) });
      res.end(body[1]);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a 2xx whose body is not JSON', () => {
  const cases: [string[], string][] = [
    [['products', 'list'], 'GET /products'],
    [['categories', 'list'], 'GET /categories'],
    [['orders', 'list'], 'GET /orders'],
    [['orders', 'get', 'ord_1'], 'GET /orders/ord_1'],
  ];
  for (const [argv, request] of cases) {
    it(`${argv.join(' ')} --json prints null, with the warning naming how to see the body`, async () => {
      const r = await runCli([...argv, '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('null\n');
      const lines = r.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { warning?: { code: string; message: string } });
      const warning = lines.find((l) => l.warning)!.warning!;
      expect(warning.code).toBe('CONTRACT_DRIFT');
      expect(warning.message).toMatch(/a body that is not JSON|an empty body/);
      expect(warning.message).toContain(`nothing could be read from it (see it as sent with: vouchers api --raw ${request})`);
    });
  }

  it('the plain view lists nothing and warns; vouchers api prints the body as received', async () => {
    const plain = await runCli(['products', 'list'], { env });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('Warning: GET /products (listProducts) answered in a shape that differs');
    const api = await runCli(['api', '--raw', 'GET', '/products'], { env });
    expect(api.code).toBe(0);
    expect(api.stdout).toBe('OK all good');
  });
});
