/**
 * An empty order list says which kind it is: no orders at all, or none that the filters
 * given match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => sendJson(res, 200, { data: [], has_more: false, next_cursor: null }));
});
afterAll(async () => {
  await server.close();
});

describe('orders list with no orders', () => {
  it('says there are none yet without filters, and that none match with them', async () => {
    const env = cliEnvFor(server);
    const none = await runCli(['orders', 'list'], { env, tty: true });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout + none.stderr).toContain('No orders yet.');
    expect(none.stdout + none.stderr).not.toContain('match');
    const filtered = await runCli(['orders', 'list', '--status', 'DELIVERED', '--from', '2026-11-01'], { env, tty: true });
    expect(filtered.code, filtered.stderr).toBe(0);
    expect(filtered.stdout + filtered.stderr).toContain('No orders match these filters.');
    const all = await runCli(['orders', 'list', '--all'], { env, tty: true });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout + all.stderr).toContain('No orders yet.');
  });
});
