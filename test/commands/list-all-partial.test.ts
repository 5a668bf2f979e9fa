/**
 * A list read page after page (`--all`) whose later page fails: the rows that came are
 * printed as they came, then the error (on stderr, with the exit code of that page's error).
 * With --json the array is left open, so that a partial list never parses as a whole one
 * (`jq` and a pipeline fail on it); NDJSON keeps every row that came. `orders list --all
 * --json` used to print nothing at all, where `transactions list --all --json` printed the
 * rows that came.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnvFor, sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

let server: LoopbackServer;
let env: Record<string, string>;

const ROWS: Record<string, (n: number) => Record<string, unknown>> = {
  orders: (n) => ({ order_id: `ord_${n}`, status: 'DELIVERED', total_amount: 10, currency: 'USD', note: 'a\u202eb' }),
  transactions: (n) => ({ transaction_id: `txn_${n}`, type: 'TOP_UP', amount: 10, currency: 'USD', description: 'a\u202eb' }),
};

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const url = new URL(req.target, 'http://x');
    const noun = url.pathname.split('/').pop()!;
    const page = Number(url.searchParams.get('cursor') ?? 1);
    // Two pages answered, the third fails.
    if (page === 3) return sendError(res, 500, 'InternalError', 'INTERNAL_ERROR', 'page 3 broke', { 'x-trace-id': 'e'.repeat(32) });
    sendJson(res, 200, { data: [ROWS[noun]!(page)], has_more: true, next_cursor: String(page + 1) });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a list read with --all whose third page fails', () => {
  for (const noun of ['orders', 'transactions']) {
    it(`${noun} list --all --json: the rows that came, the array left open, the error on stderr`, async () => {
      const r = await runCli([noun, 'list', '--all', '--json'], { env });
      expect(r.code).toBe(7);
      expect(r.stdout.startsWith('[\n  {\n')).toBe(true);
      expect(r.stdout).toContain(`"${noun === 'orders' ? 'order_id' : 'transaction_id'}": "${noun === 'orders' ? 'ord' : 'txn'}_2"`);
      expect(() => JSON.parse(r.stdout) as unknown).toThrow();
      // The two rows as a whole list would read, had the array been closed.
      const rows = JSON.parse(`${r.stdout}\n]`) as Record<string, unknown>[];
      expect(rows).toHaveLength(2);
      // Characters a terminal acts on are escaped, as in every JSON document printed.
      expect(r.stdout).toContain('a\\u202eb');
      const error = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { code: string }; trace_id: string };
      expect(error.error.code).toBe('INTERNAL_ERROR');
      expect(error.trace_id).toBe('e'.repeat(32));
    });

    it(`${noun} list --all piped: stderr says how far the list got, then the error with its exit code`, async () => {
      const r = await runCli([noun, 'list', '--all'], { env });
      expect(r.code).toBe(7);
      expect(r.stdout.trim().split('\n')).toHaveLength(2);
      const lines = r.stderr.trim().split('\n');
      const at = lines.indexOf(`--all: stopped after 2 ${noun} (2 pages); the rest was not fetched`);
      expect(at, r.stderr).toBeGreaterThanOrEqual(0);
      expect(lines.findIndex((l) => l.startsWith('Error'))).toBeGreaterThan(at);
      expect(r.stderr).toContain('page 3 broke');
    });

    it(`${noun} list --all --json: how far the list got is a JSON notice before the error`, async () => {
      const r = await runCli([noun, 'list', '--all', '--json'], { env });
      expect(r.code).toBe(7);
      const lines = r.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { notice?: { code: string; message: string }; error?: unknown });
      expect(lines.filter((l) => l.notice)).toEqual([
        { notice: { code: 'LIST_STOPPED', message: `--all: stopped after 2 ${noun} (2 pages); the rest was not fetched` } },
      ]);
      expect(lines.at(-1)!.error).toBeDefined();
    });

    it(`${noun} list --all on a terminal: the spinner's last line says how far the list got, once`, async () => {
      const r = await runCli([noun, 'list', '--all'], { tty: true, stdoutTTY: false, env: { ...env, NO_COLOR: '1' } });
      expect(r.code).toBe(7);
      expect(r.stderr.match(/stopped after 2/gi), r.stderr).toHaveLength(1);
      expect(r.stderr).toContain(`Stopped after 2 ${noun} (2 pages)`);
    });

    it(`${noun} list --all --output ndjson: every row that came, then the error`, async () => {
      const r = await runCli([noun, 'list', '--all', '--output', 'ndjson'], { env });
      expect(r.code).toBe(7);
      expect(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ).toHaveLength(2);
    });
  }

  it('orders list --all --json of a list that ends well is one whole array', async () => {
    const whole = await startLoopbackServer((req, res) => {
      const page = Number(new URL(req.target, 'http://x').searchParams.get('cursor') ?? 1);
      sendJson(res, 200, { data: [ROWS.orders!(page)], has_more: page < 2, next_cursor: page < 2 ? '2' : null });
    });
    try {
      const r = await runCli(['orders', 'list', '--all', '--json', '--fields', 'order_id'], { env: cliEnvFor(whole) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${JSON.stringify([{ order_id: 'ord_1' }, { order_id: 'ord_2' }], null, 2)}\n`);
    } finally {
      await whole.close();
    }
  });
});
