/**
 * The document says the order's fulfilment timeline has a "structure unknown"; we guessed a
 * list. A server that sends an object (keyed by step, or of its own shape) or a text has its
 * timeline kept in --json as sent and shown in the plain view, with a contract warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const base = { status: 'DELIVERED', total_amount: 25, currency: 'USD', fulfilled_from: 'cache', vouchers: [] };
const ORDERS: Record<string, Record<string, unknown>> = {
  ord_steps: {
    order_id: 'ord_steps',
    ...base,
    timeline: { created: '2026-11-25T10:00:00Z', delivered: { at: '2026-11-25T10:00:05+00:00', note: 'from cache' } },
  },
  ord_own: { order_id: 'ord_own', ...base, fulfillment_timeline: { summary: 'delivered in 5s', steps: 2 } },
  ord_text: { order_id: 'ord_text', ...base, fulfillment_timeline: 'created, then delivered' },
  ord_events: {
    order_id: 'ord_events',
    ...base,
    fulfillment_timeline: [
      { type: 'created', ts: '2026-11-25T10:00:00Z' },
      { type: 'delivered', ts: '2026-11-25T10:00:05Z' },
    ],
  },
  ord_held: { order_id: 'ord_held', ...base, fulfillment_timeline: { events: [{ type: 'created', ts: '2026-11-25T10:00:00Z' }] } },
  ord_words: { order_id: 'ord_words', ...base, fulfillment_timeline: ['created', 'delivered'] },
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const m = /^\/api\/v1\/orders\/([^/]+)$/.exec(req.target);
    if (req.method === 'GET' && m && m[1]! in ORDERS) return sendJson(res, 200, ORDERS[m[1]!], { 'x-trace-id': 'e'.repeat(32) });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('orders get with a timeline that is not a list', () => {
  it('an object keyed by step: its steps in the plain view, in the order sent', async () => {
    const r = await runCli(['orders', 'get', 'ord_steps'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '# timeline\nat\tstatus\tnote\n2026-11-25 10:00:00Z\tcreated\t\n2026-11-25 10:00:05Z\tdelivered\tfrom cache\n',
    );
    expect(r.stderr).toContain('timeline: an object where the contract has array');
  });

  it('an object of its own shape, or a text: shown as it came, under its own name', async () => {
    const own = await runCli(['orders', 'get', 'ord_own'], { env });
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('fulfillment_timeline\t{"summary":"delivered in 5s","steps":2}\n');
    expect(own.stderr).toContain('Warning: GET /orders/ord_own (getOrder) answered in a shape that differs');
    const text = await runCli(['orders', 'get', 'ord_text'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('fulfillment_timeline\tcreated, then delivered\n');
  });

  it('a list whose entries hold no status or time this version reads (or are words): shown as it came, never as empty rows', async () => {
    for (const [id, shown] of [
      ['ord_events', '[{"type":"created","ts":"2026-11-25T10:00:00Z"},{"type":"delivered","ts":"2026-11-25T10:00:05Z"}]'],
      ['ord_held', '{"events":[{"type":"created","ts":"2026-11-25T10:00:00Z"}]}'],
      ['ord_words', 'created; delivered'],
    ] as const) {
      const r = await runCli(['orders', 'get', id], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, id).toContain(`fulfillment_timeline\t${shown}\n`);
      expect(r.stdout, id).not.toContain('# timeline');
    }
  });

  it('--json keeps the timeline exactly as sent, with the warning on stderr', async () => {
    for (const id of Object.keys(ORDERS)) {
      const r = await runCli(['orders', 'get', id, '--json'], { env });
      expect(r.code).toBe(0);
      const key = 'timeline' in ORDERS[id]! ? 'timeline' : 'fulfillment_timeline';
      expect((JSON.parse(r.stdout) as Record<string, unknown>)[key], id).toEqual(ORDERS[id]![key]);
      expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ warning: { code: 'CONTRACT_DRIFT' } });
    }
  });
});
