/**
 * CSV exports through the shared writer, end to end on a loopback sandbox: a server's
 * text that a spreadsheet would evaluate is neutralised, negative amounts stay numbers,
 * and the codes file goes through the same guard.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
});
afterAll(async () => { await sb.close(); });

describe('CSV exports', () => {
  it('a product name =HYPERLINK("http://x") is exported with a leading quote', async () => {
    sb.state.products['sbx-instant']!.name = '=HYPERLINK("http://x")';
    const r = await runCli(['products', 'list', '--output', 'csv', '--fields', 'product_id,name'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toContain(`sbx-instant,"'=HYPERLINK(""http://x"")"`);
    expect(r.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it('negative amounts stay plain numbers in a transactions export', async () => {
    const order = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '25', '--json'], { env });
    expect(order.code, order.stderr).toBe(0);
    const r = await runCli(['transactions', 'list', '--type', 'ORDER_DEBIT', '--output', 'csv', '--fields', 'type,amount'], { env });
    expect(r.code, r.stderr).toBe(0);
    const amounts = r.stdout.trim().split('\n').slice(1).map((l) => l.split(',')[1]!);
    expect(amounts.length).toBeGreaterThan(0);
    expect(amounts).toContain('-25');
    for (const a of amounts) expect(a).toMatch(/^-?\d+(\.\d+)?$/);
  });

  it('the codes file uses the same guard: a code beginning with = gets a leading quote', async () => {
    const created = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { order_id: string }).order_id;
    sb.state.orders[id]!.vouchers[0]!.code = '=1+1';
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await runCli(['orders', 'codes', id, '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = readFileSync(file, 'utf8').split('\n')[1]!;
    expect(line.split(',')[5]).toBe("'=1+1");
  });
});
