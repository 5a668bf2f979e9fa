/** The transport's hook for work that should overlap the server's answer. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport, maxHeaderSize, onceSent, type Transport } from '../../../src/core/http/undici.js';
import { freePort, sendJson, startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';

let server: LoopbackServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = transport = undefined;
});

/**
 * A callback runs in a setImmediate queued when undici reports the body written, which is
 * before the answer arrives: one turn of immediates after the answer, it has run.
 */
const tick = () => new Promise((r) => setImmediate(r));

describe('onceSent', () => {
  it('runs a callback once the request with its traceparent has been sent, not for other requests, and once', async () => {
    const calls: string[] = [];
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, { ok: true }));
    transport = await createTransport({ connectTimeoutMs: 2000 });
    onceSent('tp-a', () => calls.push('a'));
    await tick();
    expect(calls).toEqual([]); // nothing was sent yet

    const other = await transport.request({ origin: server.origin, path: '/other', method: 'GET', headers: { traceparent: 'tp-other' } });
    await other.body.dump();
    await tick();
    expect(calls).toEqual([]); // another request does not run it

    const mine = await transport.request({
      origin: server.origin,
      path: '/mine',
      method: 'POST',
      body: '{}',
      headers: { traceparent: 'tp-a' },
    });
    await mine.body.dump();
    await tick();
    expect(calls).toEqual(['a']);

    const again = await transport.request({
      origin: server.origin,
      path: '/mine',
      method: 'POST',
      body: '{}',
      headers: { traceparent: 'tp-a' },
    });
    await again.body.dump();
    await tick();
    expect(calls).toEqual(['a']);
  });

  it('forgets a callback whose request never went out', async () => {
    const calls: string[] = [];
    transport = await createTransport({ connectTimeoutMs: 2000 });
    const forget = onceSent('tp-refused', () => calls.push('refused'));
    const port = await freePort(); // nothing listens there: the connection is refused
    await expect(
      transport.request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET', headers: { traceparent: 'tp-refused' } }),
    ).rejects.toThrow();
    forget();

    server = await startLoopbackServer((_req, res) => sendJson(res, 200, { ok: true }));
    const later = await transport.request({ origin: server.origin, path: '/', method: 'GET', headers: { traceparent: 'tp-refused' } });
    await later.body.dump();
    await tick();
    expect(calls).toEqual([]);
  });
});

describe('maxHeaderSize', () => {
  it("is Node's --max-http-header-size from the command line or NODE_OPTIONS, else 16 KiB", () => {
    expect(maxHeaderSize([], '')).toBe(16384);
    expect(maxHeaderSize(['--max-http-header-size=32768'], '')).toBe(32768);
    expect(maxHeaderSize([], '--trace-warnings --max-http-header-size 20000')).toBe(20000);
    expect(maxHeaderSize(['--max-http-header-size=nope'], '')).toBe(16384);
  });
});
