/**
 * On a narrow terminal the status lines of `orders create --wait` cut a long trace ID. IDs of
 * the AWS style (`Root=1-<time>-<random>`) share their start: the line keeps the end, which
 * tells them apart, after an ellipsis, and `vouchers log --trace` finds the request by what
 * the line shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { orderOfA } from '../helpers/contract-order.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const TRACES = [
  'Root=1-6745a1b2-5f1c0d2e9a8b7c6d5e4f3a2b',
  'Root=1-6745a1b2-0a9b8c7d6e5f4a3b2c1d0e9f',
  'Root=1-6745a1b2-77aa66bb55cc44dd33ee22ff',
];
const order = (status: string) => orderOfA('ord_aws', status);

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  let gets = 0;
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'GET' && req.target === '/api/v1/products/A')
      return sendJson(res, 200, { product_id: 'A', name: 'A', currency: 'USD', denominations: [10] }, { 'x-trace-id': TRACES[2]! });
    if (req.method === 'POST') return sendJson(res, 202, order('PENDING'), { 'x-trace-id': TRACES[0]! });
    gets += 1;
    return sendJson(res, 200, order(gets === 1 ? 'PROCESSING' : 'DELIVERED'), { 'x-trace-id': TRACES[gets === 1 ? 1 : 2]! });
  });
  env = { ...cliEnvFor(server), TERM: 'dumb' };
});
afterAll(async () => {
  await server.close();
});

describe('a trace ID cut to fit a status line', () => {
  it('keeps its end, which log --trace finds', async () => {
    const configDir = tempConfigDir();
    const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--wait'], {
      tty: true,
      columns: 50,
      env,
      configDir,
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(0);
    const shown = [...r.stderr.matchAll(/ (?:PENDING|PROCESSING|DELIVERED) {2,}trace (\S+)$/gm)].map((m) => m[1]!);
    expect(shown.length, r.stderr).toBeGreaterThanOrEqual(2);
    // Cut (the line fits 50 columns), and no two alike though every ID starts the same.
    for (const t of shown) expect(t).toMatch(/^(…|\.\.\.)[0-9a-f]{8,}$/);
    expect(new Set(shown).size).toBe(shown.length);
    for (const t of shown) {
      const log = await runCli(['log', '--trace', t, '--json'], { env, configDir });
      expect(log.code, log.stderr).toBe(0);
      const ids = new Set((JSON.parse(log.stdout) as { trace_id: string }[]).map((e) => e.trace_id));
      expect(ids.size).toBe(1);
      expect(TRACES.some((id) => id.endsWith(t.replace(/^(…|\.\.\.)/, '')) && ids.has(id))).toBe(true);
    }
  });
});
