/**
 * `vouchers api GET /reconciliation/<date>` masks a drift's vouchers (`our_allocation`,
 * `vendor_record`) as `reconciliation get` does: a real service may put the voucher's code
 * there, as a string or an object. Ids and words stay as they are; --reveal shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const CODES = ['X7K2-Q9ZT-LEAK-5555', 'ABCD-EFGH-IJKL-9876', 'VALUE-LEAK-3333'];
const drift = (order_id: string, our_allocation: unknown, vendor_record: unknown) => ({
  order_id,
  vendor: 'amz',
  product_id: 'p1',
  our_allocation,
  vendor_record,
  detected_at: '2026-11-21T10:00:00Z',
  resolution: 'pending',
});
const report = {
  date: '2026-11-06',
  summary: { orders_total: 3, vouchers_allocated: 3, matched: 0, drifted: 3, unmatched: 0 },
  drifts: [
    drift('ord_1', 'X7K2-Q9ZT-LEAK-5555', 'ABCD-EFGH-IJKL-9876'),
    drift('ord_2', 'vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', { value: 'VALUE-LEAK-3333' }),
    drift('ord_3', 'vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CF', 'no vendor record'),
  ],
  generated_at: '2026-11-07T00:00:00Z',
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((req, res) => sendJson(res, 200, report, { 'x-trace-id': 'a'.repeat(32) }));
});
afterAll(async () => {
  await server.close();
});

const cli = (argv: string[], tty = false): Promise<CliResult> =>
  runCli(['api', 'GET', '/reconciliation/2026-11-06', ...argv], { env: cliEnvFor(server), tty });

describe("vouchers api GET /reconciliation/<date>: a drift's vouchers", () => {
  it('are masked to their last 4 as reconciliation get masks them, piped, on a TTY, with --raw, --include and --jmespath', async () => {
    for (const argv of [[], ['--json'], ['--raw'], ['--include'], ['--jmespath', 'drifts[].[our_allocation, vendor_record]']]) {
      for (const tty of [false, true]) {
        const r = await cli(argv, tty);
        expect(r.code, r.stderr).toBe(0);
        for (const code of CODES) expect(r.stdout + r.stderr, `${argv.join(' ')} ${tty}`).not.toContain(code);
        expect(r.stdout).toContain('••••••••5555');
        expect(r.stdout).toContain('vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CE');
        expect(r.stdout).toContain('no vendor record');
        expect(r.stderr).toContain('add --reveal to print them');
      }
    }
    const json = await cli(['--json']);
    const drifts = (JSON.parse(json.stdout) as { drifts: Record<string, unknown>[] }).drifts;
    expect(drifts.map((d) => [d.our_allocation, d.vendor_record])).toEqual([
      ['••••••••5555', '••••••••9876'],
      ['vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', { value: '••••••••3333' }],
      ['vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CF', 'no vendor record'],
    ]);
  });

  it('--reveal shows them as received', async () => {
    const r = await cli(['--json', '--reveal']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(report);
    expect(r.stderr).not.toContain('masked');
  });

  it('a report of ids only is printed byte for byte when piped', async () => {
    const ids = { ...report, drifts: [report.drifts[2]] };
    const own = await startLoopbackServer((req, res) => sendJson(res, 200, ids));
    try {
      const r = await runCli(['api', 'GET', '/reconciliation/2026-11-06'], { env: cliEnvFor(own) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(JSON.stringify(ids));
      expect(r.stderr).not.toContain('masked');
    } finally {
      await own.close();
    }
  });
});
