/**
 * The check, literally: the sandbox delivers the events of a stream of orders to a
 * spawned `vouchers listen`, which is SIGKILLed mid-stream and restarted while the sandbox
 * keeps retrying. Every event the sandbox ever got a 2xx for is in the inbox exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFactory } from '../../src/factory.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { until } from '../helpers/until.js';
import { freePort } from '../helpers/loopback-server.js';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/vouchers.js');
const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function spawnListener(
  port: number,
  secret: string,
  inbox: string,
  configDir: string,
): Promise<{ proc: ChildProcess; exited: Promise<unknown> }> {
  const proc = spawn(process.execPath, [BIN, 'listen', '--port', String(port), '--secret', secret, '--inbox', inbox, '--json'], {
    env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  closers.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise((r) => proc.once('exit', r));
  await until(() => err.includes('Ready!') || proc.exitCode !== null, 'the listener process', 20_000);
  if (!err.includes('Ready!')) throw new Error(`listener did not start: ${err}`);
  return { proc, exited };
}

describe('listen, SIGKILLed while the sandbox delivers', () => {
  it('holds every event the sandbox got a 2xx for, exactly once', async () => {
    const sb = await startSandbox({
      port: 0,
      host: '127.0.0.1',
      seed: 1,
      timeScale: 0.01,
      quiet: true,
      limits: { ordersPerMinute: 10_000, generalPerHour: 100_000 },
    });
    closers.push(() => sb.close());
    const configDir = mkdtempSync(join(tmpdir(), 'vouchers-test-'));
    const inbox = join(configDir, 'events.ndjson');
    const port = await freePort();
    const f = createFactory(
      testIO({
        env: {
          VOUCHERS_CONFIG_DIR: configDir,
          VOUCHERS_BASE_URL: sb.baseUrl,
          VOUCHERS_API_KEY: sb.apiKey,
          VOUCHERS_API_SECRET: sb.apiSecret,
        },
      }),
      () => ({}),
    );
    closers.push(() => f.dispose());
    const client = await f.client();
    const hook = await client.request<{ signing_secret: string }>({
      method: 'POST',
      path: '/webhooks',
      body: { url: `http://127.0.0.1:${port}/webhooks` },
    });
    const secret = hook.data.signing_secret;

    let listener = await spawnListener(port, secret, inbox, configDir);
    const succeeded = () =>
      Object.values(sb.state.deliveries).filter((d) =>
        d.attempts.some((a) => a.status_code !== null && a.status_code >= 200 && a.status_code < 300),
      );

    const ORDERS = 24;
    const placing = (async () => {
      for (let i = 0; i < ORDERS; i++) {
        await client.request({
          method: 'POST',
          path: '/orders',
          body: { items: [{ product_id: i % 2 ? 'sbx-async' : 'sbx-instant', denomination: 10, quantity: 2 }] },
        });
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    for (const after of [15, 45]) {
      await until(() => succeeded().length >= after, `${after} acknowledged deliveries`, 20_000);
      listener.proc.kill('SIGKILL');
      await listener.exited;
      await new Promise((r) => setTimeout(r, 50)); // the sandbox meets refused connections meanwhile
      listener = await spawnListener(port, secret, inbox, configDir);
    }
    await placing;
    await until(
      () => {
        const orders = Object.values(sb.state.orders);
        const all = Object.values(sb.state.deliveries);
        return (
          orders.length === ORDERS &&
          orders.every((o) => o.status === 'DELIVERED') &&
          all.length === sb.state.events.length &&
          all.every((d) => d.status === 'succeeded')
        );
      },
      'every order delivered and every event acknowledged',
      20_000,
    );
    const failedAttempts = Object.values(sb.state.deliveries)
      .flatMap((d) => d.attempts)
      .filter((a) => a.status_code === null || a.status_code >= 300);
    expect(failedAttempts.length).toBeGreaterThan(0); // the kills did cost the sandbox attempts

    listener.proc.kill('SIGTERM');
    await listener.exited;
    const ids = readFileSync(inbox, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).envelope.event_id as string);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(succeeded().map((d) => d.event_id)));
  }, 60_000);
});
