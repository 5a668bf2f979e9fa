import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ConfigError } from '../../src/core/errors/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { StateWriter, WRITE_COALESCE_MS, WRITE_SPACING_FACTOR } from '../../src/sandbox/state/persist.js';
import type { SandboxState } from '../../src/sandbox/state/types.js';
import { admin, api, balance, order, receiver, sandbox, waitStatus } from './helpers.js';
import { until } from '../helpers/until.js';

const dir = mkdtempSync(join(tmpdir(), 'vouchers-sandbox-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('state file', () => {
  it('survives a restart: credentials, orders, ledger, webhook, pending fulfilment', async () => {
    const file = join(dir, 'state.json');
    // The webhook points at a loopback receiver: the suite never leaves loopback.
    const hooks = await receiver();
    onTestFinished(() => hooks.close());
    const first = await sandbox({ stateFile: file });
    const delivered = await order(first, [{ product_id: 'sbx-instant', denomination: 10, quantity: 2 }]);
    const gated = await order(first, [{ product_id: 'sbx-gated', denomination: 25, quantity: 1 }]);
    await api(first, 'POST', '/webhooks', { body: { url: hooks.url } });
    const usd = balance(first);
    const creds = { apiKey: first.apiKey, apiSecret: first.apiSecret, adminToken: first.adminToken };
    await first.close();
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.version).toBe(1);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const second = await sandbox({ stateFile: file });
    try {
      expect(second.apiKey).toBe(creds.apiKey);
      expect(second.apiSecret).toBe(creds.apiSecret);
      expect(second.adminToken).toBe(creds.adminToken);
      expect(balance(second)).toBe(usd);
      const got = await api(second, 'GET', `/orders/${delivered.body.order_id}`);
      expect(got.body.status).toBe('DELIVERED');
      expect((await api(second, 'GET', '/webhooks')).status).toBe(200);
      await admin(second, 'POST', `/orders/${gated.body.order_id}/approve`);
      await waitStatus(second, gated.body.order_id, ['DELIVERED']);
      // The restored webhook delivers the approved order's events to the receiver.
      await until(
        () => hooks.received.some((r) => r.body?.event === 'order.delivered' && JSON.stringify(r.body).includes(gated.body.order_id)),
        'order.delivered of the gated order',
        5000,
      );
      // Idempotency records survive too.
      const k = 'persisted-key';
      const a = await api(second, 'POST', '/orders', {
        body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
        idempotencyKey: k,
      });
      await second.close();
      const third = await sandbox({ stateFile: file });
      const b = await api(third, 'POST', '/orders', {
        body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
        idempotencyKey: k,
      });
      expect(b.body.order_id).toBe(a.body.order_id);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      await third.close();
    } finally {
      await second.close();
    }
  });

  it('writes shortly after each change, without waiting for close', async () => {
    const file = join(dir, 'live.json');
    const sb = await sandbox({ stateFile: file });
    try {
      const o = await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }]);
      // Not closed: the order reaches the file on its own.
      await until(
        () => existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).orders[o.body.order_id],
        'the order in the state file',
        5000,
      );
    } finally {
      await sb.close();
    }
  });

  it('refuses a file that is not sandbox state, with a ConfigError', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"hello": 1}');
    await expect(startSandbox({ port: 0, stateFile: file, quiet: true })).rejects.toBeInstanceOf(ConfigError);
    writeFileSync(file, 'not json');
    await expect(startSandbox({ port: 0, stateFile: file, quiet: true })).rejects.toThrow(/not valid JSON/);
  });

  it('refuses at start a state file it cannot read or write, before listening', async () => {
    await expect(startSandbox({ port: 0, stateFile: join(dir, 'missing-dir', 'state.json'), quiet: true })).rejects.toThrow(ConfigError);
    await expect(startSandbox({ port: 0, stateFile: join(dir, 'missing-dir', 'state.json'), quiet: true })).rejects.toThrow(
      /Cannot write the sandbox state file/,
    );
    await expect(startSandbox({ port: 0, stateFile: dir, quiet: true })).rejects.toThrow(/Cannot read the sandbox state file/);
    // A new file is written at once, so it exists even if the sandbox is killed before any change.
    const fresh = join(dir, 'fresh.json');
    const sb = await sandbox({ stateFile: fresh });
    try {
      expect(JSON.parse(readFileSync(fresh, 'utf8')).version).toBe(1);
    } finally {
      await sb.close();
    }
  });

  it('reuses given credentials and reports a busy port as a ConfigError', async () => {
    const sb = await sandbox({ apiKey: 'vk_test_fixed', apiSecret: 'vs_test_fixed', adminToken: 'adm_fixed' });
    try {
      expect(sb.apiKey).toBe('vk_test_fixed');
      expect((await api(sb, 'GET', '/wallets')).status).toBe(200);
      expect(sb.baseUrl).toBe(`http://127.0.0.1:${sb.port}/api/v1`);
      expect(sb.adminUrl).toBe(`http://127.0.0.1:${sb.port}/admin`);
      await expect(startSandbox({ port: sb.port, quiet: true })).rejects.toBeInstanceOf(ConfigError);
    } finally {
      await sb.close();
    }
  });
});

describe('state file writes, coalesced', () => {
  /** A writer whose writes take `takes` ms of its (fake) elapsed time, with the writes it made. */
  function writerTaking(takes: () => number) {
    let now = 0;
    const writes: number[] = [];
    const writer = new StateWriter(
      'unused.json',
      () => ({}) as SandboxState,
      (e) => {
        throw e;
      },
      () => {
        writes.push(Date.now());
        now += takes();
      },
      () => now,
    );
    return { writer, writes };
  }

  it('after a change, one write WRITE_COALESCE_MS later for any number of changes', () => {
    vi.useFakeTimers({ now: 0 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { writer, writes } = writerTaking(() => 5);
    for (let i = 0; i < 50; i++) writer.schedule();
    vi.advanceTimersByTime(WRITE_COALESCE_MS - 1);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual([WRITE_COALESCE_MS]);
    writer.schedule();
    vi.advanceTimersByTime(WRITE_COALESCE_MS);
    expect(writes).toEqual([WRITE_COALESCE_MS, 2 * WRITE_COALESCE_MS]);
  });

  it('a large state, whose write takes 80 ms, is written at most every 800 ms: a tenth of the time, not all of it', () => {
    vi.useFakeTimers({ now: 0 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { writer, writes } = writerTaking(() => 80);
    writer.schedule();
    vi.advanceTimersByTime(WRITE_COALESCE_MS);
    expect(writes).toEqual([100]);
    expect(writer.delayMs).toBe(WRITE_SPACING_FACTOR * 80);
    writer.schedule();
    vi.advanceTimersByTime(WRITE_COALESCE_MS);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(WRITE_SPACING_FACTOR * 80 - WRITE_COALESCE_MS);
    expect(writes).toEqual([100, 100 + WRITE_SPACING_FACTOR * 80]);
  });

  it('close writes at once, whatever the wait', () => {
    vi.useFakeTimers({ now: 0 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { writer, writes } = writerTaking(() => 80);
    writer.flush();
    writer.schedule();
    writer.flush();
    expect(writes).toEqual([0, 0]);
    vi.advanceTimersByTime(10_000);
    expect(writes).toHaveLength(2);
  });
});
