/**
 * A request retried after a 502 or a refused connection says so on stderr, as one retried
 * after a timeout does, however short the wait: a JSON notice with --json, stdout untouched.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvFor, freePort, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const WALLETS = { data: [{ currency: 'USD', available: 100 }], has_more: false, next_cursor: null };

describe('retry notices', () => {
  it('after a 502: one notice a retry on stderr (JSON with --json), the answer alone on stdout', async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.n <= 2) {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>502 Bad Gateway</html>');
        return;
      }
      sendJson(res, 200, WALLETS);
    });
    const r = await runCli(['wallets', 'list', '--json'], { env: { ...cliEnvFor(server), VOUCHERS_MAX_RETRIES: '3' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(WALLETS.data);
    const notices = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } })
      .filter((l) => l.notice?.code === 'RETRY_WAIT');
    expect(notices).toHaveLength(2);
    expect(notices[0]!.notice!.message).toMatch(
      /^GET \/wallets: HTTP 502.*; retrying in \d+ms \(attempt 2 of 4, trace [0-9a-f]{32}\)\. Ctrl-C stops$/,
    );
  });

  it('after a refused connection: a notice before each retry, then the error', async () => {
    const port = await freePort();
    const r = await runCli(['wallets', 'list'], {
      env: {
        VOUCHERS_BASE_URL: `http://127.0.0.1:${port}/api/v1`,
        VOUCHERS_API_KEY: 'k',
        VOUCHERS_API_SECRET: 's',
        VOUCHERS_MAX_RETRIES: '2',
        NO_COLOR: '1',
      },
    });
    expect(r.code).toBe(7);
    expect(
      r.stderr.match(/^GET \/wallets: ECONNREFUSED before the request was sent; retrying in \d+ms \(attempt \d of 3, trace/gm),
    ).toHaveLength(2);
    expect(r.stdout).toBe('');
  });
});
