/**
 * An answer that cannot be read as HTTP (a proxy mangling it, `Content-Length: zz`) comes
 * after the request was written: the server may have placed the order. Before, such a
 * failure counted as "not sent": a single write said so, and a bulk run marked its rows
 * NOT_SENT and re-sent them on --resume with new idempotency keys, ordering them twice. And
 * a dropped answer the run retries itself is replayed: that is this run's order, placed once.
 */
import { request, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { configWith, fastSandbox, quickClock } from '../helpers/sandbox.js';
import { orderCount } from './orders-helpers.js';

let sb: SandboxHandle;
let proxy: Server;
let proxyBase: string;
/** Whether the proxy mangles the answer to POST /orders after the sandbox has answered it. */
let mangle = true;
/** POST /orders answers the proxy drops (the connection closed) after the sandbox has answered them. */
let dropOrders = 0;

beforeAll(async () => {
  sb = await fastSandbox();
  const upstream = new URL(sb.baseUrl);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            if (dropOrders > 0 && req.method === 'POST' && /\/orders$/.test(req.url ?? '')) {
              dropOrders--;
              res.socket?.destroy();
              return;
            }
            if (mangle && req.method === 'POST' && /\/orders$/.test(req.url ?? '')) {
              // The order is placed; what comes back is no HTTP a client can read.
              res.socket?.end('HTTP/1.1 201 Created\r\nContent-Length: zz\r\n\r\n');
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;
});

afterAll(async () => {
  await new Promise((r) => proxy.close(r));
  await sb.close();
});

/** The CLI through the proxy, with the profile in `config`. */
const via = (config: string, argv: string[]) =>
  runCli(argv, { configDir: config, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

async function dir(): Promise<string> {
  return configWith('px', { base_url: proxyBase, api_key: sb.apiKey, api_secret: sb.apiSecret, limits: { orders_per_minute: 100_000 } });
}

describe('an answer that cannot be read as HTTP', () => {
  it('orders create: says the order may have been placed and gives the key to retry with; the retry orders nothing again', async () => {
    mangle = true;
    const config = await dir();
    const before = orderCount(sb);
    const r = await via(config, ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/could not be read as HTTP \(HPE_/);
    expect(r.stderr).not.toContain('the request was not sent');
    expect(orderCount(sb)).toBe(before + 1);
    const key = /--idempotency-key ([0-9a-f-]{36})/.exec(r.stderr)?.[1];
    expect(key, r.stderr).toBeDefined();

    mangle = false;
    const again = await via(config, ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', key!]);
    expect(again.code, again.stderr).toBe(0);
    expect(orderCount(sb)).toBe(before + 1);
  });

  it('bulk: the rows are UNKNOWN, not NOT_SENT, and --resume orders each exactly once', async () => {
    mangle = true;
    const config = await dir();
    const file = join(tempConfigDir(), 'rows.csv');
    const refs = ['hpe-0', 'hpe-1', 'hpe-2'];
    writeFileSync(file, ['product_id,denomination,reference', ...refs.map((ref) => `sbx-instant,10,${ref}`)].join('\n') + '\n');
    const results = join(tempConfigDir(), 'results.csv');
    const r = await via(config, ['orders', 'create', '--from', file, '--results', results]);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).not.toMatch(/not sent: HPE_/);
    const statuses = readFileSync(results, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[2]);
    expect(statuses).not.toContain('NOT_SENT');

    mangle = false;
    const resume = await via(config, ['orders', 'create', '--from', file]);
    expect(resume.code, resume.stderr).toBe(0);
    for (const ref of refs)
      expect(
        Object.values(sb.state.orders).filter((o) => o.reference === ref),
        ref,
      ).toHaveLength(1);
  });

  it("a connection dropped after the order, retried by the run itself: the replay is said to be this run's order, placed once", async () => {
    mangle = false;
    dropOrders = 1;
    const config = await dir();
    const before = orderCount(sb);
    const r = await via(config, ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10']);
    expect(r.code, r.stderr).toBe(0);
    expect(orderCount(sb)).toBe(before + 1);
    expect(r.stderr).toContain('(placed once: an earlier attempt of this run placed it, and the retry was answered with its result)');
    expect(r.stderr).not.toContain('this key was used before');
  });
});
