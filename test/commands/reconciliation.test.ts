/** reconciliation get: experimental; served by the sandbox only with enablePlanned. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconciliationReport } from '../../src/contract/reconciliation.js';
import { createClient } from '../../src/core/http/client.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf } from '../helpers/sandbox.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
let planned: Sandbox;
let plain: Sandbox;

beforeAll(async () => {
  [planned, plain] = await Promise.all([
    startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, enablePlanned: true }),
    startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, enablePlanned: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([planned.close(), plain.close()]);
});

describe('reconciliation get', () => {
  it('prints the report as the contract defines it, labelled experimental', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const r = await runCli(['reconciliation', 'get', today, '--json'], { env: envOf(planned) });
    expect(r.code).toBe(0);
    const report = ReconciliationReport.parse(JSON.parse(r.stdout));
    expect(report.date).toBe(today);
    // With --json, stderr's note is a JSON line too.
    expect(
      r.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([{ notice: { code: 'EXPERIMENTAL', message: expect.stringContaining('EXPERIMENTAL') } }]);
  });

  it('shows the summary and a drifts table on a terminal, lines when piped', async () => {
    const tty = await runCli(['reconciliation', 'get', 'today'], { env: envOf(planned), tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/orders_total\s+\d+/);
    expect(tty.stdout).toMatch(/No drifts\.|ORDER/);
    const piped = await runCli(['reconciliation', 'get', 'yesterday'], { env: envOf(planned) });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^drifted\t\d+$/m);
  });

  it('a day it cannot read: a usage error whose hint names every form the argument takes', async () => {
    for (const day of ['2026-13-01', 'tomorrow', '2026/11/29']) {
      const r = await runCli(['reconciliation', 'get', day], { env: envOf(planned) });
      expect(r.code, day).toBe(2);
      expect(r.stderr).toContain(`"${day}" is not a date`);
      expect(r.stderr).toMatch(/hint\s+use a UTC day as YYYY-MM-DD, or today or yesterday \(UTC\)/);
    }
  });

  it('lists a drift made through the sandbox admin surface', async () => {
    const client = createClient({ baseUrl: planned.baseUrl, apiKey: planned.apiKey, apiSecret: planned.apiSecret, limits: null });
    const order = await client.request<{ order_id: string }>({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'sbx-instant', denomination: 25, quantity: 1 }] },
      idempotencyKey: 'recon-drift-order',
    });
    await client.close();
    const made = await fetch(`${planned.adminUrl}/drifts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${planned.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: order.data.order_id, vendor_record: 'VR-TEST-0001' }),
    });
    expect(made.status).toBe(201);
    const json = await runCli(['reconciliation', 'get', 'today', '--json'], { env: envOf(planned) });
    const report = ReconciliationReport.parse(JSON.parse(json.stdout));
    expect(report.summary.drifted).toBeGreaterThanOrEqual(1);
    expect(report.drifts.map((d) => d.order_id)).toContain(order.data.order_id);
    // Our allocation is the voucher's id: shown as it is. The vendor's record is no id: masked as a code.
    const ours = report.drifts.find((d) => d.order_id === order.data.order_id)!;
    expect(ours.our_allocation).toMatch(/^vch_[0-9A-Z]{26}$/);
    expect(ours.vendor_record).toBe('••••••••0001');
    const tty = await runCli(['reconciliation', 'get', 'today'], { env: envOf(planned), tty: true, columns: 200 });
    expect(tty.stdout).toContain('RESOLUTION');
    expect(tty.stdout).toContain(order.data.order_id);
    expect(tty.stdout).toContain(ours.our_allocation);
    expect(tty.stdout).toContain('••••••••0001');
    expect(tty.stdout).not.toContain('VR-TEST-0001');
    expect(tty.stdout).toContain('pending');
    expect(tty.stderr).toContain('Codes are masked: add --reveal to show them');
    const revealed = await runCli(['reconciliation', 'get', 'today', '--reveal'], { env: envOf(planned), tty: true, columns: 200 });
    expect(revealed.stdout).toContain('VR-TEST-0001');
    expect(revealed.stdout).toContain(ours.our_allocation);
    const piped = await runCli(['reconciliation', 'get', 'today'], { env: envOf(planned) });
    expect(piped.stdout).toMatch(new RegExp(`^${order.data.order_id}\tsandbox-vendor\tsbx-instant\t`, 'm'));
    // Piped, the drifts follow the summary's lines under a title and their columns' names, as an order's sections do.
    expect(piped.stdout).toMatch(
      /^unmatched\t\d+\n\n# drifts\norder_id\tvendor\tproduct_id\tour_allocation\tvendor_record\tdetected_at\tresolution\nord_/m,
    );
  });

  it('a server without it: "not offered by this server" (exit 4)', async () => {
    const r = await runCli(['reconciliation', 'get', '2026-11-21'], { env: envOf(plain) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('reconciliation is not offered by this server (planned feature; start the sandbox with --enable-planned)');
    expect(r.stdout).toBe('');
  });

  it('a malformed date is a usage error (exit 2)', async () => {
    const r = await runCli(['reconciliation', 'get', '21/11/2026'], { env: envOf(plain) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('YYYY-MM-DD');
  });

  it('--help says it is experimental, with an example', async () => {
    const r = await runCli(['reconciliation', 'get', '--help']);
    expect(r.stdout).toContain('EXPERIMENTAL');
    expect(r.stdout).toContain('$ vouchers reconciliation get');
  });
});
