/**
 * The lines a wait prints besides the status lines, on a narrow terminal: "not shown yet
 * (HTTP 404)" for an order the server does not show yet, and the note under a status this
 * version does not know, fitted to the terminal as the status lines are: their words wrapped
 * under a hanging indent, the trace ID whole on one line, never cut.
 */
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvFor, sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { orderOfA } from '../helpers/contract-order.js';

const ORDER_ID = 'ord_01M8VBAKKD3HGS6SAGCCXBDFTT';
const TRACES = ['9fa64c310eaac2fc8b93a1216534faea', 'b679571b4ee01dcbf9a6f13ede2b0a11', '216e2046793fb5194e1ca85548b90c22'];
const order = (status: string) => orderOfA(ORDER_ID, status);

let server: LoopbackServer;
let env: Record<string, string>;
let gets = 0;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'GET' && req.target === '/api/v1/products/A')
      return sendJson(res, 200, { product_id: 'A', name: 'A', currency: 'USD', denominations: [10] }, { 'x-trace-id': TRACES[0]! });
    if (req.method === 'POST') return sendJson(res, 202, order('PENDING'), { 'x-trace-id': TRACES[0]! });
    gets += 1;
    const step = gets % 3;
    if (step === 1) return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such order', { 'x-trace-id': TRACES[1]! });
    return sendJson(res, 200, order(step === 2 ? 'ON_HOLD_FOR_REVIEW' : 'DELIVERED'), { 'x-trace-id': TRACES[2]! });
  });
  env = { ...cliEnvFor(server), TERM: 'dumb', NO_COLOR: '1' };
});
afterAll(async () => {
  await server.close();
});

async function waitOutput(columns: number): Promise<string> {
  const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--wait'], {
    tty: true,
    columns,
    env,
    configDir: tempConfigDir(),
    overrides: { clock: quickClock() },
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stderr;
}

/** The first line matching `start` and those under it (indented). */
function block(text: string, start: RegExp): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  expect(from, text).toBeGreaterThanOrEqual(0);
  const to = lines.findIndex((l, i) => i > from && !l.startsWith('  '));
  return lines.slice(from, to === -1 ? undefined : to);
}
const words = (lines: string[]) => lines.join(' ').trim().split(/ +/).join(' ');

describe('the other lines of a wait', () => {
  for (const columns of [60, 80]) {
    it(`at ${columns} columns: "not shown yet (HTTP 404)" fitted, its trace ID whole on one line, its words all there`, async () => {
      const lines = block(await waitOutput(columns), /not shown yet \(HTTP 404\)/);
      // Laid out as a status line: its time only its clock, the order id left out (the lines above name it).
      // Two cells are the spinner's, before each line it keeps.
      for (const l of lines) expect(stringWidth(l) + 2, lines.join('\n')).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\dZ {2}not shown yet \(HTTP 404\)/);
      expect(
        lines.some((l) => l.includes(`trace ${TRACES[1]}`)),
        lines.join('\n'),
      ).toBe(true);
      expect(
        lines.slice(1).every((l) => l.startsWith('  ')),
        lines.join('\n'),
      ).toBe(true);
      expect(words(lines)).toMatch(/the server accepted it; asking again until it shows it or the wait ends$/);
    });

    it(`at ${columns} columns: the note under a status this version does not know fitted under its indent`, async () => {
      const lines = block(await waitOutput(columns), /^ {2}ON_HOLD_FOR_REVIEW is a status /);
      expect(lines.length, lines.join('\n')).toBeGreaterThan(1);
      for (const l of lines) {
        expect(stringWidth(l) + 2, lines.join('\n')).toBeLessThanOrEqual(columns);
        expect(l.startsWith('  '), l).toBe(true);
      }
      expect(words(lines)).toBe(
        'ON_HOLD_FOR_REVIEW is a status this version does not know: it waits on, until the order reaches a final one (DELIVERED, PARTIALLY_DELIVERED, REFUNDED, or their usual synonyms) or --wait-timeout passes',
      );
    });
  }

  it('piped, each is one whole line', async () => {
    const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--wait'], {
      env,
      configDir: tempConfigDir(),
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `\\n\\S+ \\S+ {2}${ORDER_ID} {2}not shown yet \\(HTTP 404\\) {2}trace ${TRACES[1]}: the server accepted it; asking again until it shows it or the wait ends\\n`,
      ),
    );
    expect(r.stderr).toContain(
      '\n  ON_HOLD_FOR_REVIEW is a status this version does not know: it waits on, until the order reaches a final one (DELIVERED, PARTIALLY_DELIVERED, REFUNDED, or their usual synonyms) or --wait-timeout passes\n',
    );
  });
});
