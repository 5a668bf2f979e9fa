/**
 * `vouchers api GET … --paginate`: every page of a list, following next_cursor, against the
 * sandbox and against a loopback server whose paging is shaped per test (bare arrays, no
 * cursor, a failing page, a cursor that repeats, more pages than --max-pages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { shellWords } from '../helpers/cli-text.js';
import { testIO } from '../helpers/io.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer, type RecordedRequest } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, FAST_LIMITS } from '../helpers/sandbox.js';

describe('api --paginate against the sandbox', () => {
  let sb: Awaited<ReturnType<typeof startSandbox>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS });
    env = envOf(sb);
  });
  afterAll(async () => {
    await sb.close();
  });

  it('prints every page, one JSON document each, and together they hold the whole list', async () => {
    const whole = await runCli(['api', 'GET', '/products', '-q', 'limit=200', '--jmespath', 'data[].product_id'], { env });
    const ids = JSON.parse(whole.stdout) as string[];
    expect(ids.length).toBeGreaterThan(10);
    const r = await runCli(['api', 'GET', '/products', '-q', 'limit=5', '--paginate'], { env });
    expect(r.code, r.stderr).toBe(0);
    const pages = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { data: { product_id: string }[]; has_more: boolean });
    expect(pages).toHaveLength(Math.ceil(ids.length / 5));
    expect(pages.flatMap((p) => p.data.map((x) => x.product_id))).toEqual(ids);
    expect(pages.at(-1)!.has_more).toBe(false);
  });

  it('--jmespath runs on each page', async () => {
    const r = await runCli(['api', 'GET', '/products', '-q', 'limit=4', '--paginate', '--jmespath', 'length(data)'], { env });
    expect(r.code, r.stderr).toBe(0);
    const counts = r.stdout.trim().split('\n').map(Number);
    expect(counts.slice(0, -1).every((n) => n === 4)).toBe(true);
    expect(counts.length).toBeGreaterThan(2);
  });

  it('--max-pages: stops there with exit 8 and the command that goes on; running it prints the rest', async () => {
    const query = ['--jmespath', "join(',', data[].product_id)"];
    const lines = (text: string) => text.trim().split('\n');
    const all = await runCli(['api', 'GET', '/products', '-q', 'limit=5', '--paginate', ...query], { env });
    expect(lines(all.stdout).length).toBeGreaterThan(3);
    const r = await runCli(['api', 'GET', '/products', '-q', 'limit=5', '--paginate', '--max-pages', '2', ...query], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('stopped after 2 pages (--max-pages 2); the list goes on');
    expect(lines(r.stdout)).toEqual(lines(all.stdout).slice(0, 2));
    // The command repeats the options of this run, --jmespath included.
    // --jmespath implies --json: the error is the JSON envelope, its hint the command.
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { message: string; hint?: string } };
    const argv = shellWords(/continue from there with: (vouchers .*)$/m.exec(`${error.message}\n${error.hint ?? ''}`)![1]!).slice(1);
    expect(argv).toEqual(expect.arrayContaining(['--paginate', ...query]));
    const rest = await runCli(argv, { env });
    expect(rest.code, rest.stderr).toBe(0);
    expect(lines(rest.stdout)).toEqual(lines(all.stdout).slice(2));
  });

  it('only GET, and --max-pages only with --paginate', async () => {
    const post = await runCli(['api', 'POST', '/orders', '-d', '{}', '--paginate'], { env });
    expect(post.code).toBe(2);
    expect(post.stderr).toContain('--paginate follows the next_cursor of GET lists, not POST');
    const alone = await runCli(['api', 'GET', '/products', '--max-pages', '2'], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--max-pages bounds --paginate');
    const bad = await runCli(['api', 'GET', '/products', '--paginate', '--max-pages', '0'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-pages "0" is not a page count');
  });
});

describe('api --paginate against other servers', () => {
  let server: LoopbackServer;
  /** What the server answers for each request, by path; a function gets the request. */
  let answer: (req: RecordedRequest, res: Parameters<typeof sendJson>[0]) => void;
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => answer(req, res));
  });
  afterAll(async () => {
    await server.close();
  });
  const env = () => ({
    VOUCHERS_BASE_URL: server.baseUrl,
    VOUCHERS_API_KEY: 'pk_test_paginate',
    VOUCHERS_API_SECRET: 'sk_test_paginate_secret',
    VOUCHERS_MAX_RETRIES: '0',
  });
  const cursorOf = (req: RecordedRequest) => new URL(req.target, 'http://x').searchParams.get('cursor');

  it('a bare array, or a body with no cursor, is the whole list: one request, exit 0', async () => {
    for (const body of [[{ id: 1 }, { id: 2 }], { items: [{ id: 1 }] }, { data: [{ id: 1 }], has_more: false }]) {
      answer = (_req, res) => sendJson(res, 200, body);
      const before = server.requests.length;
      const r = await runCli(['api', 'GET', '/things', '--paginate', '--jmespath', '@'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(body);
      expect(server.requests.length - before).toBe(1);
    }
  });

  it('has_more true with no cursor is not the whole list: the page is printed, then exit 8 saying the rest was not fetched', async () => {
    const body = { data: [{ id: 1 }], has_more: true };
    answer = (_req, res) => sendJson(res, 200, body);
    const before = server.requests.length;
    const r = await runCli(['api', 'GET', '/things', '--paginate', '--jmespath', '@'], { env: env() });
    expect(r.code).toBe(8);
    expect(JSON.parse(r.stdout)).toEqual(body);
    expect(r.stderr).toContain("the server's list says more follows, but names no cursor, next link or page this version can follow");
    expect(server.requests.length - before).toBe(1);
  });

  it('sends the cursor as a query parameter, keeping the others and replacing one given', async () => {
    answer = (req, res) => {
      const cursor = cursorOf(req);
      if (cursor === null || cursor === 'mine') return sendJson(res, 200, { data: [1], has_more: true, next_cursor: 'c2' });
      if (cursor === 'c2') return sendJson(res, 200, { data: [2], has_more: true, next_cursor: 'c3' });
      return sendJson(res, 200, { data: [3], has_more: false, next_cursor: null });
    };
    const before = server.requests.length;
    const r = await runCli(['api', 'GET', '/things', '-q', 'limit=1', '-q', 'cursor=mine', '--paginate', '--jmespath', 'data[0]'], {
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('1\n2\n3\n');
    expect(server.requests.slice(before).map((q) => q.target)).toEqual([
      '/api/v1/things?limit=1&cursor=mine',
      '/api/v1/things?limit=1&cursor=c2',
      '/api/v1/things?limit=1&cursor=c3',
    ]);
  });

  it('a page that fails: its own exit code, the pages before it printed, and how many on stderr, as orders list --all says it', async () => {
    answer = (req, res) => {
      if (cursorOf(req) === null) return sendJson(res, 200, { data: [{ id: 'first' }], has_more: true, next_cursor: 'gone' });
      return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'cursor expired');
    };
    const r = await runCli(['api', 'GET', '/things', '--paginate'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout.split('\n')[0]).toBe(JSON.stringify({ data: [{ id: 'first' }], has_more: true, next_cursor: 'gone' }));
    expect(r.stderr).toContain('--paginate: stopped after 1 page printed; the rest was not fetched\nError: cursor expired');
    expect(r.stderr).toContain('cursor expired');
    // With --json, stderr is JSON lines only: the note, then the error envelope.
    const j = await runCli(['api', 'GET', '/things', '--paginate', '--json'], { env: env() });
    expect(j.code).toBe(4);
    const lines = j.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      notice: { code: 'LIST_STOPPED', message: '--paginate: stopped after 1 page printed; the rest was not fetched' },
    });
    expect(lines.at(-1)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('a cursor the server already gave ends the run (exit 8, as --all) instead of looping', async () => {
    answer = (_req, res) => sendJson(res, 200, { data: [1], has_more: true, next_cursor: 'again' });
    const before = server.requests.length;
    const r = await runCli(['api', 'GET', '/things', '--paginate'], { env: env() });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("the server's list names as its next page one it already gave: stopped after 2 pages to avoid a loop");
    expect(server.requests.length - before).toBe(2);
  });

  it('Ctrl-C between pages stops it, saying how many pages were printed, with the trace IDs for support (exit 130)', async () => {
    const io = testIO({ env: { ...env(), VOUCHERS_CONFIG_DIR: tempConfigDir() } });
    const traces: string[] = [];
    answer = (req, res) => {
      const n = Number(cursorOf(req) ?? '0');
      traces.push(/^00-([0-9a-f]{32})-/.exec(String(req.headers.traceparent))![1]!);
      if (n === 2) io.interrupt();
      sendJson(res, 200, { data: [n], has_more: true, next_cursor: String(n + 1) });
    };
    const code = await run(['api', 'GET', '/things', '--paginate', '--jmespath', 'data[0]'], io);
    await new Promise((r) => setImmediate(r));
    expect(code).toBe(130);
    expect(io.stdoutText()).toMatch(/^0\n1\n(2\n)?$/);
    // --jmespath implies --json: stderr is the error envelope alone.
    const lines = io.stderrText().trim().split('\n');
    expect(lines, io.stderrText()).toHaveLength(1);
    const envelope = JSON.parse(lines[0]!) as { error: { message: string }; trace_id: string | null };
    const printed = Number(/stopped after ([23]) pages printed/.exec(envelope.error.message)?.[1]);
    expect(printed, envelope.error.message).toBeGreaterThan(1);
    // The last page answered is named; the envelope's trace ID is the request stopped, else that page's.
    expect(envelope.error.message).toContain(`; the last page answered had trace ID ${traces[printed - 1]}`);
    expect(traces.slice(printed - 1)).toContain(envelope.trace_id);
  });
});
