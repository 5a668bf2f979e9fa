/**
 * The status lines of `orders create --wait` on a narrow terminal: the status is padded to a
 * column only as far as leaves the trace ID whole, never narrower than the usual statuses
 * (PROCESSING), so a 60-column terminal does not show twelve blank cells beside a trace ID
 * cut to fit; where there is room, the column is as wide as the widest status. Every trace
 * ID lines up.
 */
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { run } from '../../src/main.js';
import { testIO } from '../helpers/io.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { orderOfA } from '../helpers/contract-order.js';

const TRACES = ['9fa64c310eaac2fc8b93a1216534faea', 'b679571b4ee01dcbf9a6f13ede2b0a11', '216e2046793fb5194e1ca85548b90c22'];
const order = (status: string) => orderOfA('ord_01M8VBAKKD3HGS6SAGCCXBDFTT', status);

let server: LoopbackServer;
let env: Record<string, string>;
let gets = 0;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'GET' && req.target === '/api/v1/products/A')
      return sendJson(res, 200, { product_id: 'A', name: 'A', currency: 'USD', denominations: [10] }, { 'x-trace-id': TRACES[0]! });
    if (req.method === 'POST') return sendJson(res, 202, order('PENDING'), { 'x-trace-id': TRACES[0]! });
    gets += 1;
    return sendJson(res, 200, order(gets % 2 === 1 ? 'PROCESSING' : 'DELIVERED'), { 'x-trace-id': TRACES[gets % 2 === 1 ? 1 : 2]! });
  });
  env = { ...cliEnvFor(server), TERM: 'dumb', NO_COLOR: '1' };
});
afterAll(async () => {
  await server.close();
});

async function statusLines(columns: number): Promise<string[]> {
  const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--wait'], {
    tty: true,
    columns,
    env,
    configDir: tempConfigDir(),
    overrides: { clock: quickClock() },
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stderr.split('\n').filter((l) => /\b(PENDING|PROCESSING|DELIVERED) +trace /.test(l));
}

describe('the status lines of a wait', () => {
  it('at 60 columns: the status column as wide as PROCESSING, not PARTIALLY_DELIVERED, the trace IDs lined up and cut only by that', async () => {
    const lines = await statusLines(60);
    expect(lines.length, lines.join('\n')).toBe(3);
    for (const l of lines) expect(stringWidth(l) + 2, l).toBeLessThanOrEqual(60);
    expect(new Set(lines.map((l) => l.indexOf(' trace ')))).toHaveLength(1);
    expect(lines[0]).toMatch(/\d\d:\d\d:\d\dZ {2}PENDING {5}trace /);
    expect(lines[1]).toMatch(/\d\d:\d\d:\d\dZ {2}PROCESSING {2}trace /);
    // (TERM=dumb: only ASCII, '...' for the ellipsis.) Three cells short of whole: 26 of 32 kept.
    lines.forEach((l, i) => {
      const cut = /trace \.\.\.([0-9a-f]+)$/.exec(l);
      expect(cut, l).not.toBeNull();
      expect(cut![1]!.length, l).toBe(26);
      expect(TRACES[i]!.endsWith(cut![1]!)).toBe(true);
    });
  });

  it('at 80 columns: the status a column as wide as the widest status, every trace ID whole and lined up', async () => {
    const lines = await statusLines(80);
    expect(lines.length, lines.join('\n')).toBe(3);
    const at = lines.map((l) => l.indexOf('trace '));
    expect(new Set(at).size).toBe(1);
    lines.forEach((l, i) => expect(l.endsWith(`trace ${TRACES[i]}`), l).toBe(true));
  });

  it('the spinner at 60 columns leaves the order id out (the lines above name it), not what it waits for and the status seen', async () => {
    const io = testIO({ tty: true, columns: 60, env: { ...env, VOUCHERS_CONFIG_DIR: tempConfigDir() } });
    Object.assign(io.stderr, { columns: 60 });
    const code = await run(['orders', 'create', '--product', 'A', '--denomination', '10', '--wait'], io, { clock: quickClock() });
    await new Promise((r) => setImmediate(r));
    expect(code, io.stderrText()).toBe(0);
    const waiting = io
      .stderrText()
      .split('\n')
      .filter((l) => l.includes('Waiting for'));
    expect(waiting.length, io.stderrText()).toBeGreaterThan(0);
    for (const l of waiting) {
      expect(stringWidth(l), l).toBeLessThanOrEqual(60);
      expect(l).toMatch(/Waiting for a final status( \(up to \d+m\)|: PENDING|: PROCESSING)$/);
    }
  });
});
