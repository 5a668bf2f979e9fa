/**
 * A one-shot command against a server slow to answer: a spinner on a terminal's stderr while
 * the request is in flight, taken off before the answer is printed.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineDrawn } from '../../src/core/io/io.js';
import { run } from '../../src/main.js';
import { testIO } from '../helpers/io.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';

let server: LoopbackServer;
let held: ServerResponse | undefined;

beforeAll(async () => {
  // Answers only when the test lets it.
  server = await startLoopbackServer((_req, res) => {
    held = res;
  });
});
afterAll(() => server.close());

describe('a slow one-shot request on a terminal', () => {
  it('shows a spinner on stderr while it waits, and takes it off before anything is printed', async () => {
    const io = testIO({ tty: true, env: { ...cliEnvFor(server), VOUCHERS_CONFIG_DIR: tempConfigDir() } });
    const drawnWhenPrinted: boolean[] = [];
    io.stdout.on('data', () => drawnWhenPrinted.push(lineDrawn(io.stderr)));
    const code = run(['orders', 'get', 'ord_1'], io);
    await until(() => io.stderrText().includes('Waiting for GET /orders/ord_1…'), 'the spinner to show');
    expect(lineDrawn(io.stderr)).toBe(true);
    sendJson(held!, 200, { order_id: 'ord_1', status: 'PENDING', items: [] });
    expect(await code).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(io.stdoutText()).toContain('ord_1');
    expect(drawnWhenPrinted.length).toBeGreaterThan(0);
    expect(drawnWhenPrinted.every((drawn) => !drawn)).toBe(true);
    expect(lineDrawn(io.stderr)).toBe(false);
  });
});
