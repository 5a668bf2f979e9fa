/**
 * Pagination names are "not shown" in the API document: a server may say where the next page
 * is under other common names. `--all` and `api --paginate` follow them, every row once, and
 * say what they followed; a list that says more follows with no way to ask for it is an
 * incomplete answer (exit 8), never "all there is".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const rows = (page: 1 | 2) =>
  (page === 1 ? ['txn_1', 'txn_2'] : ['txn_3', 'txn_4']).map((id) => ({ transaction_id: id, type: 'TOP_UP', amount: 1, currency: 'USD' }));

/** The body of page 1 (no cursor asked) and page 2 (`cursor=p2`), per shape. */
const SHAPES: Record<string, { first: unknown; last: unknown; via: string }> = {
  'results, has_more and a bare "next"': {
    first: { results: rows(1), has_more: true, next: 'p2' },
    last: { results: rows(2), has_more: false, next: null },
    via: '"next" (sent as cursor)',
  },
  'pagination.next_cursor': {
    first: { data: rows(1), pagination: { has_more: true, next_cursor: 'p2' } },
    last: { data: rows(2), pagination: { has_more: false, next_cursor: null } },
    via: '"pagination.next_cursor" (sent as cursor)',
  },
  'links.next as a path': {
    first: { data: rows(1), links: { next: '/api/v1/transactions?cursor=p2' } },
    last: { data: rows(2), links: { next: null } },
    via: '"links.next" (a URL: its path and query, on the base URL)',
  },
};

let server: LoopbackServer | undefined;
const env = () => ({
  VOUCHERS_BASE_URL: server!.baseUrl,
  VOUCHERS_API_KEY: 'k',
  VOUCHERS_API_SECRET: 's',
  VOUCHERS_MAX_RETRIES: '0',
  NO_COLOR: '1',
});
async function serve(first: unknown, last: unknown, cursor = 'p2'): Promise<void> {
  server = await startLoopbackServer((req, res) => {
    const url = new URL(req.target, 'http://x');
    if (url.pathname !== '/api/v1/transactions') return sendJson(res, 404, {});
    return sendJson(res, 200, url.searchParams.get('cursor') === cursor ? last : first, { 'x-trace-id': 'e'.repeat(32) });
  });
}
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('--all and api --paginate follow the next page under other common names', () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    it(name, async () => {
      await serve(shape.first, shape.last);
      const r = await runCli(['transactions', 'list', '--all', '--output', 'csv', '--fields', 'transaction_id'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('transaction_id\ntxn_1\ntxn_2\ntxn_3\ntxn_4\n');
      expect(r.stderr).toContain(`--all: the server names its next page otherwise than has_more/next_cursor: followed ${shape.via}`);
      expect(r.stderr).not.toContain('all there is');
      expect(server!.requests.map((q) => q.target)).toEqual(['/api/v1/transactions', '/api/v1/transactions?cursor=p2']);

      const api = await runCli(['api', 'GET', '/transactions', '--paginate'], { env: env() });
      expect(api.code, api.stderr).toBe(0);
      expect(
        api.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ).toEqual([shape.first, shape.last]);
      expect(api.stderr).toContain(`--paginate: the server names its next page otherwise than has_more/next_cursor: followed ${shape.via}`);
      // With --json, the same note as a JSON line: stderr stays machine-readable.
      const apiJson = await runCli(['api', 'GET', '/transactions', '--paginate', '--json'], { env: env() });
      expect(apiJson.code, apiJson.stderr).toBe(0);
      const notes = apiJson.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
      expect(notes).toContainEqual({
        notice: {
          code: 'PAGES_FOLLOWED',
          message: `--paginate: the server names its next page otherwise than has_more/next_cursor: followed ${shape.via} to each next page (2 pages)`,
        },
      });
    });
  }

  it('a next_cursor sent as a number (an offset) is a cursor: sent back as its digits, never "no cursor"', async () => {
    await serve({ data: rows(1), has_more: true, next_cursor: 2 }, { data: rows(2), has_more: false, next_cursor: null }, '2');
    const r = await runCli(['transactions', 'list', '--all', '--output', 'csv', '--fields', 'transaction_id'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('transaction_id\ntxn_1\ntxn_2\ntxn_3\ntxn_4\n');
    expect(server!.requests.map((q) => q.target)).toEqual(['/api/v1/transactions', '/api/v1/transactions?cursor=2']);
    const api = await runCli(['api', 'GET', '/transactions', '--paginate'], { env: env() });
    expect(api.code, api.stderr).toBe(0);
    expect(api.stdout.trim().split('\n')).toHaveLength(2);
    const one = await runCli(['transactions', 'list', '--output', 'csv', '--fields', 'transaction_id'], { env: env() });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain('--cursor 2');
  });

  it('a list that says more follows but names no way on: what came is printed, then exit 8 saying the rest was not fetched', async () => {
    await serve({ results: rows(1), has_more: true }, undefined);
    const r = await runCli(['transactions', 'list', '--all', '--output', 'csv', '--fields', 'transaction_id'], { env: env() });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('transaction_id\ntxn_1\ntxn_2\n');
    expect(r.stderr).toContain(
      "--all: the server's list says more follows, but names no cursor, next link or page this version can follow",
    );
    expect(r.stderr).toContain('stopped after 2 transactions (1 page), the rest not fetched');
    expect(r.stderr).not.toContain('all there is');
    // The trace ID of the page that said so, on its own line for support.
    expect(r.stderr).toContain(`  trace ID  ${'e'.repeat(32)}\n`);
    const api = await runCli(['api', 'GET', '/transactions', '--paginate'], { env: env() });
    expect(api.code).toBe(8);
    expect(api.stderr).toContain("--paginate: the server's list says more follows");
    expect(api.stderr).toContain(`  trace ID  ${'e'.repeat(32)}\n`);
    expect(server!.requests).toHaveLength(2);
    // With --json, in the envelope's trace_id.
    for (const argv of [
      ['transactions', 'list', '--all', '--json'],
      ['api', 'GET', '/transactions', '--paginate', '--json'],
    ]) {
      const j = await runCli(argv, { env: env() });
      expect(j.code).toBe(8);
      const envelope = JSON.parse(j.stderr.trim().split('\n').pop()!) as { error: { code: string }; trace_id: string | null };
      expect(envelope.error.code).toBe('PENDING');
      expect(envelope.trace_id, argv.join(' ')).toBe('e'.repeat(32));
    }
  });
});
