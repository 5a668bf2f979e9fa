/**
 * A server that names its trace ID only in a W3C `traceparent` response header
 * (`00-<32 hex trace id>-<16 hex>-<2 hex>`), not in X-Trace-ID: its trace id is the one quoted
 * in errors, written to `vouchers log` and recorded by certify's own probes, as X-Request-Id
 * and the other names are. X-Trace-ID wins when both are sent; a traceparent that is not one
 * is passed over. It used to be ignored: the ID quoted was the one the CLI had sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRawSender } from '../../src/certify/raw.js';
import type { RecordedRequest as CertifyRecord } from '../../src/certify/types.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { cliEnvFor, sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const SERVER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${SERVER_TRACE}-00f067aa0ba902b7-01`;

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0] ?? '';
    const headers: Record<string, string> = path.endsWith('/both')
      ? { 'x-trace-id': 'the-x-trace-id', traceparent: TRACEPARENT }
      : path.endsWith('/request-id')
        ? { 'x-request-id': 'req-123', traceparent: TRACEPARENT }
        : path.endsWith('/malformed')
          ? { traceparent: `00-${SERVER_TRACE}-short-01`, 'x-request-id': 'req-456' }
          : path.endsWith('/zeros')
            ? { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }
            : { traceparent: TRACEPARENT };
    if (path.startsWith('/api/v1/orders/')) return sendError(res, 500, 'InternalError', 'INTERNAL_ERROR', 'it broke', headers);
    sendJson(res, 200, { data: [], has_more: false, next_cursor: null }, headers);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

/** The trace ID `vouchers log` recorded for the last request of a run. */
async function logged(configDir: string): Promise<string> {
  const r = await runCli(['log', '--limit', '1', '--json'], { configDir, env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { trace_id: string }[])[0]!.trace_id;
}

describe('the trace ID of a traceparent response header', () => {
  it('is quoted in an error and written to the request log', async () => {
    const configDir = tempConfigDir();
    const r = await runCli(['orders', 'get', 'ord_1', '--json'], { configDir, env });
    expect(r.code).not.toBe(0);
    const envelope = JSON.parse(r.stderr.trim().split('\n').pop()!) as { trace_id: string | null };
    expect(envelope.trace_id).toBe(SERVER_TRACE);
    expect(await logged(configDir)).toBe(SERVER_TRACE);
    const human = await runCli(['orders', 'get', 'ord_1'], { env });
    expect(human.stderr).toContain(`trace ID  ${SERVER_TRACE}`);
  });

  it('X-Trace-ID wins over it, and it over X-Request-Id; one that is not a traceparent (or all zeros) is passed over', async () => {
    const traceOf = async (suffix: string): Promise<string> => {
      const configDir = tempConfigDir();
      const r = await runCli(['api', 'GET', `/wallets${suffix}`], { configDir, env });
      expect(r.code, r.stderr).toBe(0);
      return logged(configDir);
    };
    expect(await traceOf('')).toBe(SERVER_TRACE);
    expect(await traceOf('/both')).toBe('the-x-trace-id');
    expect(await traceOf('/request-id')).toBe(SERVER_TRACE);
    expect(await traceOf('/malformed')).toBe('req-456');
    // No trace: the one this CLI sent.
    const sent = await traceOf('/zeros');
    expect(sent).toMatch(/^[0-9a-f]{32}$/);
    expect(sent).not.toBe('0'.repeat(32));
  });

  it("is recorded by certify's own probes", async () => {
    const recorded: CertifyRecord[] = [];
    const raw = createRawSender({
      baseUrl: server.baseUrl,
      apiKey: 'pk_test',
      apiSecret: 'sk_test_secret_0123456789',
      signingPath: 'full',
      clock: { now: () => Date.now(), sleep: async () => undefined },
      signal: new AbortController().signal,
      record: (r) => recorded.push(r),
    });
    const answer = await raw.send({ method: 'GET', path: '/wallets' });
    expect(answer.traceId).toBe(SERVER_TRACE);
    expect(recorded.map((r) => r.trace_id)).toEqual([SERVER_TRACE]);
    expect((await raw.send({ method: 'GET', path: '/wallets/both' })).traceId).toBe('the-x-trace-id');
  });
});
