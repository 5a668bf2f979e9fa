/** The transport's hook for work that should overlap the server's answer. */
import { afterEach, describe, expect, it } from 'vitest';
import { afterNextRequestSent, createTransport, type Transport } from '../../../src/core/http/undici.js';
import { startLoopbackServer, sendJson, type LoopbackServer } from '../../helpers/loopback-server.js';

let server: LoopbackServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = transport = undefined;
});

describe('afterNextRequestSent', () => {
  it('runs its callbacks once a request has been sent, not before, and only once', async () => {
    const order: string[] = [];
    server = await startLoopbackServer((req, res) => {
      order.push(`server got ${req.method} ${req.target}`);
      // Answer later than the callbacks run, so the order below does not depend on the race.
      setTimeout(() => sendJson(res, 200, { ok: true }), 30);
    });
    transport = await createTransport({ connectTimeoutMs: 2000 });
    afterNextRequestSent(() => order.push('first callback'));
    afterNextRequestSent(() => order.push('second callback'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]); // nothing was sent yet

    const res = await transport.request({ origin: server.origin, path: '/one', method: 'POST', body: '{}' });
    await res.body.dump();
    expect(order.filter((o) => o.endsWith('callback'))).toEqual(['first callback', 'second callback']);
    expect(order).toContain('server got POST /one');

    const again = await transport.request({ origin: server.origin, path: '/two', method: 'GET' });
    await again.body.dump();
    expect(order.filter((o) => o.endsWith('callback'))).toHaveLength(2);
  });
});
