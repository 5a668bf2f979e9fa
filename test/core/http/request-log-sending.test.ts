/**
 * A keyed write is in the request log before it leaves (a "sending" line), so that a
 * process killed before the answer leaves its idempotency key behind; the answered line
 * completes it. Reads, the CLI's probes and a bulk row (whose key its journal holds) get
 * no such line.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/core/http/client.js';
import { openRequestLog } from '../../../src/core/journal/request-log.js';
import type { RequestOptions } from '../../../src/core/http/types.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { fakeClock, sequentialIds } from './fake-clock.js';

const ORDER = { order_id: 'ord_1', status: 'PENDING', vouchers: [] };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client whose server notes, as each request arrives, the request log's lines at that moment. */
async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-sending-'));
  const requestLog = openRequestLog(dir);
  const seenByServer: string[][] = [];
  const lines = () =>
    readFileSync(requestLog.path, { encoding: 'utf8', flag: 'a+' })
      .split('\n')
      .filter((l) => l !== '');
  server = await startLoopbackServer((req, res) => {
    seenByServer.push(lines());
    if (req.method === 'GET') sendJson(res, 200, { data: [] });
    else if (req.n === 1) sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'later');
    else sendJson(res, 202, ORDER, { 'x-trace-id': 'e'.repeat(32) });
  });
  const client = createClient({
    baseUrl: server.baseUrl,
    apiKey: 'pk_test_key',
    apiSecret: 'sk_test_secret',
    clock: fakeClock(),
    ids: sequentialIds(),
    requestLog,
    profileName: 'test',
    limits: null,
    random: () => 0.5,
  });
  return { client, requestLog, seenByServer, lines };
}

const ORDER_REQUEST: RequestOptions = {
  method: 'POST',
  path: '/orders',
  body: { items: [{ product_id: 'secret-product-body', denomination: 25, quantity: 1 }] },
};

describe('a keyed write in the request log before it is sent', () => {
  it('each attempt is logged as sending before the server sees it; read gives the answered lines alone', async () => {
    const { client, requestLog, seenByServer, lines } = await setup();
    await client.request(ORDER_REQUEST);
    await client.close();
    // Attempt 1 arrived after its own sending line; attempt 2 after its own too.
    expect(seenByServer).toHaveLength(2);
    const last = (at: number) => JSON.parse(seenByServer[at]!.at(-1)!) as Record<string, unknown>;
    expect(last(0)).toMatchObject({ method: 'POST', path: '/orders', status: null, attempt: 1, idempotency_key: 'key-1', sending: true });
    expect(last(1)).toMatchObject({ status: null, attempt: 2, idempotency_key: 'key-1', sending: true });
    expect(lines()).toHaveLength(4);
    expect(lines().join('\n')).not.toContain('secret-product-body');
    // Read: one line per attempt, as before, none unanswered or failed twice.
    const entries = await requestLog.read();
    expect(entries.map((e) => [e.attempt, e.status, e.unanswered])).toEqual([
      [1, 503, undefined],
      [2, 202, undefined],
    ]);
    expect((await requestLog.read({ failedOnly: true })).map((e) => e.status)).toEqual([503]);
  });

  it('no sending line for a read, a probe or a write whose key the caller journals (bulk)', async () => {
    const { client, requestLog, lines } = await setup();
    await client.request({ method: 'GET', path: '/wallets' });
    await client.request({ ...ORDER_REQUEST, keyJournalled: true });
    await client.request({ method: 'POST', path: '/orders/ord_probe/cancel', idempotencyKey: 'auto', probe: true, raw: true });
    await client.close();
    expect(lines().filter((l) => l.includes('"sending":true'))).toEqual([]);
    expect((await requestLog.read()).map((e) => [e.method, e.status, e.idempotency_key !== null])).toEqual([
      ['GET', 200, false],
      ['POST', 202, true],
      ['POST', 202, true],
    ]);
  });

  it('a key given to the command is marked on both lines of each attempt (key_given); a key made for the write is not', async () => {
    const { client, requestLog, lines } = await setup();
    await client.request({ ...ORDER_REQUEST, idempotencyKey: 'script-key-1', keyGiven: true });
    await client.request({ ...ORDER_REQUEST });
    await client.close();
    const keyed = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    // The first request is answered 503 and retried (the server's first answer).
    expect(keyed.map((l) => [l.idempotency_key, l.attempt, l.sending ?? false, l.key_given ?? false])).toEqual([
      ['script-key-1', 1, true, true],
      ['script-key-1', 1, false, true],
      ['script-key-1', 2, true, true],
      ['script-key-1', 2, false, true],
      ['key-1', 1, true, false],
      ['key-1', 1, false, false],
    ]);
    expect((await requestLog.read()).map((e) => e.key_given)).toEqual([true, true, undefined]);
  });
});
