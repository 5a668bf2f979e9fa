/**
 * orders wait on a server that answers a poll without a status (a 202 with no body while the
 * order is being fulfilled, a body without `status`): the line for that answer says the
 * answer names no status, instead of an empty status and a note that "" is a status this
 * version does not know; it waits on to the final status as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

let server: LoopbackServer;
let env: Record<string, string>;
const seen = new Map<string, number>();

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'd'.repeat(32) };
    const id = /^\/api\/v1\/orders\/(ord_\w+)$/.exec(req.target)?.[1];
    if (req.method === 'GET' && id) {
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      if (n === 1 && id === 'ord_empty') {
        res.writeHead(202, h);
        res.end();
        return;
      }
      if (n === 1) return sendJson(res, 200, { order_id: id }, h);
      if (id === 'ord_stop') return sendJson(res, 503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'down for maintenance' } }, h);
      return sendJson(res, 200, { order_id: id, status: 'DELIVERED' }, h);
    }
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'not found' } }, h);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('orders wait on an answer without a status', () => {
  for (const id of ['ord_empty', 'ord_bare']) {
    it(`${id}: the line says no status was named, then the order is followed to DELIVERED`, async () => {
      const r = await runCli(['orders', 'wait', id], { env, overrides: { clock: quickClock() } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^status\tDELIVERED$/m);
      expect(r.stderr).toMatch(new RegExp(`  ${id}  \\(no status in the answer\\)  trace d{32}\\n`));
      expect(r.stderr).toContain('  the answer names no status: it waits on, until the order reaches a final one');
      expect(r.stderr).not.toMatch(/^ +is a status this version does not know/m);
      expect(r.stderr).not.toMatch(new RegExp(`  ${id}  +trace`));
    });
  }

  it('a follow stopped by an error after an answer without a status says so, not an empty "last seen"', async () => {
    const r = await runCli(['orders', 'wait', 'ord_stop', '--max-retries', '0'], { env, overrides: { clock: quickClock() } });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('Order ord_stop was placed (no status in the answer); following it stopped.');
    expect(r.stderr).not.toContain('last seen )');
  });
});
