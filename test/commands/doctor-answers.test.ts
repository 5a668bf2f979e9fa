/**
 * vouchers doctor against a server that answers, but not as the API does: what it answered is
 * said (status, what the body was, the trace ID), never that it did not answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvFor, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Check {
  check: string;
  level: string;
  detail: string;
  fix: string | null;
}

describe('doctor against a proxy answering 502 with a web page', () => {
  it('says the server answered HTTP 502 with an HTML page and its trace ID, on the failed line and on those it did not check', async () => {
    server = await startLoopbackServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html; charset=utf-8', 'x-trace-id': TRACE });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    const r = await runCli(['doctor', '--json'], { env: cliEnvFor(server) });
    expect(r.code, r.stderr).toBe(7);
    const checks = JSON.parse(r.stdout) as Check[];
    const by = (name: string) => checks.find((c) => c.check === name)!;
    expect(by('reachable')).toMatchObject({
      level: 'fail',
      detail: `the server answered HTTP 502 with an HTML page (trace ${TRACE})`,
      fix: 'the service (or a proxy in front of it) is failing or unavailable: try again later, and quote the trace ID to support',
    });
    for (const name of ['authentication', 'ip_allowlist', 'signing'])
      expect(by(name)).toMatchObject({
        level: 'skip',
        detail: `not checked: the server answered HTTP 502 with an HTML page (trace ${TRACE})`,
      });
    expect(r.stdout).not.toContain('did not answer');
  });
});
