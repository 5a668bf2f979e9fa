/**
 * An order status under another name than the contract's (QUEUED, COMPLETED): the order
 * verbs read it as the status it stands for (orders wait keeps following QUEUED, ends at
 * COMPLETED as delivered), and the contract warning says so ("read as PENDING") instead of
 * calling it a value this version does not know. A word the verbs cannot place is still one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { orderOfA } from '../helpers/contract-order.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const order = (id: string, status: string) => orderOfA(id, status, { timeline: [{ status, at: '2026-03-01T10:00:00Z', note: null }] });

let server: LoopbackServer;
let env: Record<string, string>;
/** GETs of each order so far: the first answers QUEUED, the next COMPLETED. */
const seen = new Map<string, number>();

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'POST' && req.target === '/api/v1/orders') return sendJson(res, 202, order('ord_new', 'QUEUED'));
    const id = /^\/api\/v1\/orders\/(ord_\w+)$/.exec(req.target)?.[1];
    if (req.method === 'GET' && id) {
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      if (id === 'ord_odd') return sendJson(res, 200, order(id, 'BACKORDERED'));
      return sendJson(res, 200, order(id, n === 1 && id !== 'ord_new' ? 'QUEUED' : 'COMPLETED'));
    }
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('an order status under another name', () => {
  it('orders get: the warning names QUEUED as read as PENDING, not as a value this version does not know', async () => {
    const r = await runCli(['orders', 'get', 'ord_get'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\tQUEUED$/m);
    expect(r.stderr).toContain(
      `Warning: GET /orders/ord_get (getOrder) answered with statuses under another name than the contract's (status = "QUEUED", read as PENDING; timeline.0.status = "QUEUED", read as PENDING); shown as sent`,
    );
    expect(r.stderr).not.toMatch(/does not know|newer vouchers/);
  });

  it('orders get --json: the warning line has its own code', async () => {
    const r = await runCli(['orders', 'get', 'ord_json', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const warning = (JSON.parse(r.stderr.trim()) as { warning: { code: string; issues: string[] } }).warning;
    expect(warning.code).toBe('OTHER_STATUS_NAMES');
    expect(warning.issues).toEqual(['status = "QUEUED", read as PENDING', 'timeline.0.status = "QUEUED", read as PENDING']);
  });

  it('orders wait follows QUEUED and ends at COMPLETED as delivered; the warning agrees', async () => {
    const r = await runCli(['orders', 'wait', 'ord_wait'], { env, overrides: { clock: quickClock() } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\tCOMPLETED$/m);
    expect(r.stderr).toContain('(status = "QUEUED", read as PENDING;');
    expect(r.stderr).not.toMatch(/does not know|newer vouchers/);
  });

  it('orders create --wait: QUEUED then COMPLETED, exit 0; the warning says how QUEUED was read', async () => {
    const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--wait'], {
      env,
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('POST /orders (createOrder) answered with statuses under another name');
    expect(r.stderr).toContain('"QUEUED", read as PENDING');
    expect(r.stderr).not.toMatch(/does not know|newer vouchers/);
  });

  it('a word the verbs cannot place is still a value this version does not know', async () => {
    const r = await runCli(['orders', 'get', 'ord_odd'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('answered with values this version of vouchers does not know (status = "BACKORDERED"');
    expect(r.stderr).not.toContain('read as');
  });
});
