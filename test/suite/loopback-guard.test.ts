/**
 * The global test guard (test/helpers/loopback-guard.ts, installed by setup.ts): any
 * connection outside loopback is refused at once with an error naming the host, whatever
 * client makes it; loopback still works. Each test takes the refusals it caused, so the
 * setup's afterEach does not fail it.
 */
import dns from 'node:dns';
import { once } from 'node:events';
import { connect as netConnect } from 'node:net';
import { get as httpGet } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/core/http/undici.js';
import { GUARD_CODE, isLoopbackHost, takeBlockedConnections } from '../helpers/loopback-guard.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';

afterEach(() => {
  takeBlockedConnections();
});

/** Fails unless `p` settles within `ms`: "immediately", not after a connect timeout. */
function within<T>(p: Promise<T>, ms = 1000): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref()),
  ]);
}

describe('loopback guard', () => {
  it('net.connect to 192.0.2.1 (TEST-NET) is refused at once, naming the host', async () => {
    const socket = netConnect({ host: '192.0.2.1', port: 443 });
    const [error] = (await within(once(socket, 'error'))) as [NodeJS.ErrnoException];
    expect(error.code).toBe(GUARD_CODE);
    expect(error.message).toContain('192.0.2.1:443');
    expect(socket.destroyed).toBe(true);
    expect(takeBlockedConnections()).toEqual(['192.0.2.1:443']);
  });

  it("tls.connect, http.get, fetch and the CLI's undici transport are refused the same way", async () => {
    const tls = tlsConnect({ host: '192.0.2.1', port: 443 });
    expect(((await within(once(tls, 'error'))) as [NodeJS.ErrnoException])[0].code).toBe(GUARD_CODE);

    const req = httpGet('http://192.0.2.1/x');
    expect(((await within(once(req, 'error'))) as [NodeJS.ErrnoException])[0].code).toBe(GUARD_CODE);

    const fetched = await within(
      fetch('http://192.0.2.1/x').then(
        () => undefined,
        (e: Error & { cause?: NodeJS.ErrnoException }) => e,
      ),
    );
    expect(fetched?.cause?.code).toBe(GUARD_CODE);

    const transport = await createTransport({ connectTimeoutMs: 30_000 });
    try {
      const e = await within(
        transport.request({ origin: 'http://192.0.2.1', path: '/x', method: 'GET' }).then(
          () => undefined,
          (x: NodeJS.ErrnoException) => x,
        ),
      );
      expect(e?.code).toBe(GUARD_CODE);
    } finally {
      await transport.destroy();
    }
    expect(takeBlockedConnections()).toEqual(['192.0.2.1:443', '192.0.2.1:80', '192.0.2.1:80', '192.0.2.1:80']);
  });

  it('a name is refused before it is resolved; DNS lookups of other names are refused too', async () => {
    const socket = netConnect({ host: 'partner.example', port: 443 });
    expect(((await within(once(socket, 'error'))) as [Error])[0].message).toContain('partner.example:443');
    await expect(dns.promises.lookup('partner.example')).rejects.toMatchObject({ code: GUARD_CODE });
    const viaCallback = await new Promise<NodeJS.ErrnoException | null>((resolve) => dns.lookup('partner.example', (e) => resolve(e)));
    expect(viaCallback?.code).toBe(GUARD_CODE);
    expect(takeBlockedConnections()).toEqual(['partner.example:443', 'dns:partner.example', 'dns:partner.example']);
  });

  it('loopback still connects: 127.0.0.1 and localhost', async () => {
    const server = await startLoopbackServer((_req, res) => sendJson(res, 200, { ok: true }));
    try {
      expect((await fetch(`${server.origin}/a`)).status).toBe(200);
      expect((await fetch(`http://localhost:${server.port}/b`)).status).toBe(200);
    } finally {
      await server.close();
    }
    expect(takeBlockedConnections()).toEqual([]);
  });

  it('what counts as loopback', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['192.0.2.1', '0.0.0.0', '::', '10.0.0.1', '::ffff:192.0.2.1', 'partner.example', 'localhost.example', '128.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});
