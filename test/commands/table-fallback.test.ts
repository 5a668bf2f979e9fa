/**
 * Tables that cannot fit the terminal with their ids, amounts, statuses, times and paths
 * whole: many --fields at 60 columns, a very long request path in `log`. Free text shrinks
 * first; when the protected columns alone are too wide, every row is shown as a block of
 * `field  value` lines (as gh does) instead of a box whose lines wrap.
 */
import { describe, expect } from 'vitest';
import { cellWidth } from '../../src/core/output/cells.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { profileDir } from '../helpers/sandbox.js';

const ANSI = /\x1b\[[0-9;]*m/g;
const REFERENCE = '年末キャンペーン用ギフトカード注文-po-1042-second-batch';

function expectFits(text: string, columns: number): void {
  for (const l of text.replace(ANSI, '').split('\n'))
    expect(cellWidth(l), `${cellWidth(l)} cells at ${columns}: ${l}`).toBeLessThanOrEqual(columns);
}

async function withOrders(sb: SandboxHandle, n: number): Promise<{ configDir: string; ids: string[] }> {
  const configDir = await profileDir(sb, 'local');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await runCli(
      ['orders', 'create', '--product', 'sbx-instant', '--denomination', '25', '--reference', `${REFERENCE}-${i}`, '--json'],
      { configDir },
    );
    expect(r.code, r.stderr).toBe(0);
    ids.push((JSON.parse(r.stdout) as { order_id: string }).order_id);
  }
  return { configDir, ids };
}

describe('a table wider than the terminal', () => {
  it('many --fields at 60 columns: one block a row, every value whole, nothing past the edge', async ({ freshSandbox: sb }) => {
    const { configDir, ids } = await withOrders(sb, 2);
    const fields = 'order_id,status,total_amount,currency,reference,created_at,updated_at';
    const r = await runCli(['orders', 'list', '--fields', fields], { configDir, tty: true, columns: 60 });
    expect(r.code, r.stderr).toBe(0);
    expectFits(r.stdout, 60);
    const text = r.stdout.replace(ANSI, '');
    expect(text).not.toContain('┌');
    for (const id of ids) expect(text).toMatch(new RegExp(`^order_id +${id}$`, 'm'));
    // Every field of every row, in the order asked.
    const labels = text
      .split('\n')
      .filter((l) => /^\S/.test(l))
      .map((l) => l.split(/ +/)[0]);
    expect(labels).toEqual([...fields.split(','), ...fields.split(',')]);
    expect(r.stderr).toMatch(/do not fit 60 columns: one block a row/);
    // At 200 columns the same fields are a table.
    const wide = await runCli(['orders', 'list', '--fields', fields], { configDir, tty: true, columns: 200 });
    expect(wide.stdout).toContain('┌');
    expectFits(wide.stdout, 200);
  });

  it('--fields that fit once free text shrinks stay a table: the reference is cut, the id is not', async ({ freshSandbox: sb }) => {
    const { configDir, ids } = await withOrders(sb, 1);
    const r = await runCli(['orders', 'list', '--fields', 'order_id,status,reference'], { configDir, tty: true, columns: 60 });
    expect(r.code, r.stderr).toBe(0);
    expectFits(r.stdout, 60);
    expect(r.stdout).toContain('┌');
    expect(r.stdout).toContain(ids[0]);
    expect(r.stdout).toContain('…');
  });

  it('log: a very long request path stays whole at 60 and 80 columns', async ({ freshSandbox: sb }) => {
    const configDir = await profileDir(sb, 'local');
    const path = `/products/${'a-very-long-product-id-'.repeat(4)}end`;
    const miss = await runCli(['api', 'GET', path], { configDir });
    expect(miss.code).toBe(4);
    for (const columns of [60, 80]) {
      const r = await runCli(['log', '--failed'], { configDir, tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      expectFits(r.stdout, columns);
      // The path is cut only where the line wraps, never shortened: joined back, it is whole.
      const text = r.stdout.replace(ANSI, '');
      expect(text.replace(/\n {2,}/g, '')).toContain(path);
      expect(text).not.toContain('…');
    }
    // A short path at 120 columns is still a table.
    await runCli(['api', 'GET', '/products/nope'], { configDir });
    const r = await runCli(['log', '--failed', '--limit', '1'], { configDir, tty: true, columns: 120 });
    expect(r.stdout).toContain('┌');
    expectFits(r.stdout, 120);
  });
});
