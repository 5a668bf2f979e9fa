/**
 * A keyed write whose connection was refused never left the machine: the request log
 * keeps its failure (the error code, the trace ID) but never lists it as a write without
 * an answer, "it may or may not have been done", as it lists one that timed out after it
 * was sent.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/time/clock.js';
import { freePort } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

interface Logged {
  method: string;
  path: string;
  status: number | null;
  error_code: string | null;
  idempotency_key: string | null;
  unanswered?: true;
}

describe('log and a write refused before it was sent', () => {
  it('orders create against a port nobody listens on: failed, not unanswered', async () => {
    const dir = tempConfigDir();
    const env = {
      VOUCHERS_BASE_URL: `http://127.0.0.1:${await freePort()}/api/v1`,
      VOUCHERS_API_KEY: 'pk_not_sent',
      VOUCHERS_API_SECRET: 'sk_not_sent',
      VOUCHERS_MAX_RETRIES: '1',
    };
    // The retry's back-off is not waited out.
    const clock: Clock = { now: () => Date.now(), sleep: () => Promise.resolve() };
    const placed = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '25'], {
      configDir: dir,
      env,
      overrides: { clock },
    });
    expect(placed.code, placed.stderr).toBe(7);
    expect(placed.stderr).toContain('the request was not sent');
    // Nothing can have been placed: the hint says how to reach the server, on the base URL's own port.
    expect(placed.stderr).not.toContain('if the order was placed');
    expect(placed.stderr).toContain(`(for the local sandbox: vouchers sandbox start --port ${new URL(env.VOUCHERS_BASE_URL).port})`);

    const failed = await runCli(['log', '--failed', '--json'], { configDir: dir });
    const entries = JSON.parse(failed.stdout) as Logged[];
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e).toMatchObject({ method: 'POST', path: '/orders', status: null, error_code: 'ECONNREFUSED' });
      expect(e.idempotency_key).not.toBeNull();
      expect(e.unanswered).toBeUndefined();
    }
    const open = await runCli(['log', '--unanswered', '--json'], { configDir: dir });
    expect(JSON.parse(open.stdout)).toEqual([]);
    const table = await runCli(['log', '--failed'], { configDir: dir });
    expect(table.stdout).not.toContain('no answer recorded');
    expect(table.stderr).not.toContain('may or may not have been done');
  });
});
