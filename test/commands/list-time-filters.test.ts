/**
 * --from and --to of orders list and transactions list take what --since and --until of the
 * logs take: a duration before now (30m, 2h, 7d, 2w), today, yesterday, an ISO 8601 date or
 * time. The server filters by UTC day; a time within a day keeps only the records from it.
 * "Now" is the CLI's clock, here a fixed one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Order } from '../../src/contract/orders.js';
import type { Transaction } from '../../src/contract/money.js';
import type { Clock } from '../../src/factory.js';
import { systemClock } from '../../src/core/time/clock.js';
import { it } from '../helpers/fixtures.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const clock: Clock = { now: () => NOW, sleep: systemClock.sleep };
const at = (iso: string) => Date.parse(iso);

/** The times the records are put at: yesterday afternoon, three hours ago, half an hour ago. */
const TIMES = ['2026-11-21T15:00:00Z', '2026-11-22T09:00:00Z', '2026-11-22T11:30:00Z'];

async function threeOrders(sb: SandboxHandle, env: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  for (const created of TIMES) {
    const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as Order).order_id;
    sb.state.orders[id]!.created_at = at(created);
    // Its debit too, for transactions list.
    for (const t of sb.state.transactions) if (t.order_id === id) t.created_at = at(created);
    ids.push(id);
  }
  return ids;
}

describe('time filters of the lists', () => {
  it('orders list --from 2h, 4h, 7d, yesterday, --to 1h: the orders created then, by the CLI clock', async ({ freshSandbox: sb }) => {
    const env = envOf(sb);
    const [yesterday, threeHours, halfHour] = await threeOrders(sb, env);
    const listed = async (...argv: string[]) => {
      const r = await runCli(['orders', 'list', ...argv, '--json'], { env, overrides: { clock } });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Order[]).map((o) => o.order_id);
    };
    expect(await listed('--from', '2h')).toEqual([halfHour]);
    expect(await listed('--from', '4h')).toEqual([halfHour, threeHours]);
    expect(await listed('--from', '7d')).toEqual([halfHour, threeHours, yesterday]);
    expect(await listed('--from', '1w', '--to', '1h')).toEqual([threeHours, yesterday]);
    expect(await listed('--from', 'yesterday', '--to', 'yesterday')).toEqual([yesterday]);
    expect(await listed('--from', 'today')).toEqual([halfHour, threeHours]);
    expect(await listed('--from', '2026-11-22T10:00:00+01:00')).toEqual([halfHour, threeHours]);
    expect(await listed('--to', '30m')).toEqual([halfHour, threeHours, yesterday]);
    expect(await listed('--to', '31m')).toEqual([threeHours, yesterday]);

    // --all keeps the same rows, and says how many of those fetched it kept.
    const all = await runCli(['orders', 'list', '--from', '2h', '--all', '--limit', '1', '--output', 'ndjson'], {
      env,
      overrides: { clock },
    });
    expect(all.code, all.stderr).toBe(0);
    expect(
      all.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Order).order_id),
    ).toEqual([halfHour]);

    // The next page repeats the time as it was read: the same list, whenever it is asked for.
    const page = await runCli(['orders', 'list', '--from', '4h', '--limit', '1'], { env, overrides: { clock } });
    expect(page.code, page.stderr).toBe(0);
    expect(page.stderr).toMatch(/vouchers orders list --from 2026-11-22T08:00:00Z --limit 1 --cursor \S+/);
  });

  it('transactions list --from 2h and --to yesterday read the same way', async ({ freshSandbox: sb }) => {
    const env = envOf(sb);
    const [yesterday, , halfHour] = await threeOrders(sb, env);
    const orderIds = async (...argv: string[]) => {
      const r = await runCli(['transactions', 'list', '--type', 'ORDER_DEBIT', ...argv, '--json'], { env, overrides: { clock } });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Transaction[]).map((t) => t.order_id);
    };
    expect(await orderIds('--from', '2h')).toEqual([halfHour]);
    expect(await orderIds('--to', 'yesterday')).toEqual([yesterday]);
    const streamed = await runCli(['transactions', 'list', '--type', 'ORDER_DEBIT', '--from', '90m', '--all', '--output', 'ndjson'], {
      env,
      overrides: { clock },
    });
    expect(
      streamed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Transaction).order_id),
    ).toEqual([halfHour]);
  });

  it('a value none of the forms reads: exit 2 naming the forms, nothing sent', async ({ freshSandbox: sb }) => {
    const env = envOf(sb);
    // The request log of this config directory: every request the CLI sends is written there.
    const configDir = tempConfigDir();
    for (const [argv, flag, value] of [
      [['orders', 'list', '--from', 'last week'], '--from', 'last week'],
      [['orders', 'list', '--to', '2h30'], '--to', '2h30'],
      [['transactions', 'list', '--from', '7'], '--from', '7'],
      [['transactions', 'list', '--to', '2026-02-30'], '--to', '2026-02-30'],
    ] as const) {
      const r = await runCli([...argv], { env, configDir, overrides: { clock } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        value === '2026-02-30'
          ? '--to "2026-02-30" is not a date: February 2026 has 28 days'
          : `${flag} ${JSON.stringify(value)} is neither a duration nor a date`,
      );
      expect(r.stderr).toContain(
        'give a duration before now (30m, 2h, 7d, 2w), today or yesterday (UTC days), or an ISO 8601 date or time',
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(configDir, 'requests.log'))).toBe(false);
  });
});
