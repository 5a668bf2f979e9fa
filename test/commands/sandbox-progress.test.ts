/**
 * The sandbox commands on a terminal while they wait: a call of the admin surface slow to
 * answer shows the request spinner, as every request of the partner API does, and `sandbox
 * trigger` a spinner naming the event it waits for; each is taken off before anything is printed.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineDrawn } from '../../src/core/io/io.js';
import { run } from '../../src/main.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { fastSandbox, localProfileDir } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let server: LoopbackServer;
let held: ServerResponse | undefined;
let sb: SandboxHandle;

beforeAll(async () => {
  // An admin surface that answers only when the test lets it.
  server = await startLoopbackServer((_req, res) => {
    held = res;
  });
  // Real time: sbx-async is delivered after the sandbox's fulfilment delay.
  sb = await fastSandbox({ timeScale: 1 });
});
afterAll(async () => {
  await server.close();
  await sb.close();
});

describe('the sandbox commands on a terminal', () => {
  it('an admin call slow to answer shows a spinner, taken off before the answer is printed', async () => {
    const dir = await localProfileDir(sb, { admin_url: `${server.origin}/admin`, admin_token: 'adm_test' });
    const io = testIO({ tty: true, env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const drawnWhenPrinted: boolean[] = [];
    io.stdout.on('data', () => drawnWhenPrinted.push(lineDrawn(io.stderr)));
    const code = run(['sandbox', 'admin', 'orders', 'list'], io);
    await until(() => io.stderrText().includes('Waiting for GET /admin/orders…'), 'the spinner to show');
    expect(lineDrawn(io.stderr)).toBe(true);
    sendJson(held!, 200, { data: [], has_more: false, next_cursor: null });
    expect(await code).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(io.stdoutText()).toContain('No orders.');
    expect(drawnWhenPrinted.every((drawn) => !drawn)).toBe(true);
    expect(lineDrawn(io.stderr)).toBe(false);
  });

  it('sandbox trigger shows what it waits for until the event is emitted', async () => {
    const io = testIO({ tty: true, env: { VOUCHERS_CONFIG_DIR: await localProfileDir(sb), NO_COLOR: '1' } });
    const code = run(['sandbox', 'trigger', 'order.partially_delivered'], io);
    await until(() => /Waiting for order\.partially_delivered of \S+ \(up to 1m\)/.test(io.stderrText()), 'the spinner to show', 10_000);
    expect(lineDrawn(io.stderr)).toBe(true);
    expect(await code).toBe(0);
    expect(lineDrawn(io.stderr)).toBe(false);
    expect(io.stderrText()).toContain('Emitted order.partially_delivered');
  });
});
