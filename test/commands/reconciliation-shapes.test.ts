/**
 * reconciliation get against servers whose planned report took another shape (the document
 * says its contract may change): every 2xx is shown, never an unexpected error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

let server: LoopbackServer;
const bodies: Record<string, unknown> = {
  // Named otherwise: no summary at all.
  '2026-11-01': { report_date: '2026-11-01', totals: { orders: 3 }, discrepancies: [{ order: 1, note: 'late' }] },
  // The contract's names, with nulls.
  '2026-11-02': { date: '2026-11-02', summary: null, drifts: null, generated_at: null },
  // A summary that is not an object, drifts of another shape.
  '2026-11-03': { date: '2026-11-03', summary: 'ok', drifts: [{ ref: 'd1' }] },
};

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const date = req.target.split('/').pop() ?? '';
    if (date === '2026-11-04') {
      // An empty 200.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return;
    }
    sendJson(res, 200, bodies[date]);
  });
});
afterAll(async () => {
  await server.close();
});

const cli = (argv: string[], tty = false): Promise<CliResult> =>
  runCli(['reconciliation', 'get', ...argv], {
    env: cliEnvFor(server),
    tty,
  });

describe('reconciliation get: a report of another shape', () => {
  it('a report without a summary object is shown as received, in a table and piped, exit 0', async () => {
    for (const date of ['2026-11-01', '2026-11-02', '2026-11-03']) {
      for (const tty of [false, true]) {
        const r = await cli([date], tty);
        expect(r.code, `${date} ${tty}: ${r.stderr}`).toBe(0);
        expect(r.stderr).not.toContain('Unexpected error');
        expect(r.stderr).toContain('differs from the contract');
      }
    }
    const items = await cli(['2026-11-01']);
    expect(items.stdout).toContain('report_date\t2026-11-01');
    expect(items.stdout).toContain('totals\t{"orders":3}');
    const nulls = await cli(['2026-11-02'], true);
    expect(nulls.stdout).toMatch(/^date +2026-11-02$/m);
    expect(nulls.stdout).toMatch(/^summary *$/m);
  });

  it('an empty 200 is no crash: nothing shown, JSON null', async () => {
    for (const argv of [[], ['--output', 'table'], ['--output', 'csv']]) {
      const r = await cli(['2026-11-04', ...argv]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('an empty body');
      expect(r.stderr).not.toContain('Unexpected error');
    }
    for (const argv of [['--json'], ['--output', 'ndjson']]) {
      const r = await cli(['2026-11-04', ...argv]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toBeNull();
    }
  });

  it('drifts that are null or of another shape: CSV and NDJSON print what there is', async () => {
    const nulls = await cli(['2026-11-02', '--output', 'csv']);
    expect(nulls.code, nulls.stderr).toBe(0);
    expect(nulls.stdout).toBe('order_id,vendor,product_id,our_allocation,vendor_record,detected_at,resolution\n');
    const other = await cli(['2026-11-03', '--output', 'ndjson']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toBe('{"ref":"d1"}\n');
    const csv = await cli(['2026-11-03', '--output', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('ref\nd1\n');
  });
});

describe('reconciliation get: code-like fields', () => {
  it('are masked in every format, as vouchers api masks them', async () => {
    bodies['2026-11-05'] = { report_date: '2026-11-05', discrepancies: [{ order: 1, code: 'RECON-SECRET-CODE', pin: '1234' }] };
    for (const argv of [['--json'], [], ['--output', 'table'], ['--output', 'ndjson']]) {
      const r = await cli(['2026-11-05', ...argv]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('RECON-SECRET-CODE');
      expect(r.stdout).not.toContain('1234');
    }
    const json = await cli(['2026-11-05', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      report_date: '2026-11-05',
      discrepancies: [{ order: 1, code: '••••••••CODE', pin: '••••' }],
    });
  });
});

describe("reconciliation get: a drift's vouchers (our_allocation, vendor_record)", () => {
  const drift = (order_id: string, our_allocation: unknown, vendor_record: unknown) => ({
    order_id,
    vendor: 'amz',
    product_id: 'p1',
    our_allocation,
    vendor_record,
    detected_at: '2026-11-21T10:00:00Z',
    resolution: 'pending',
  });
  const CODES = [
    'X7K2-Q9ZT-LEAK-5555',
    'ABCD-EFGH-IJKL-9876',
    'OBJCODE-LEAK-4444',
    'VALUE-LEAK-3333',
    'LISTED-LEAK-2222',
    '4111111111111111',
  ];
  beforeAll(() => {
    bodies['2026-11-06'] = {
      date: '2026-11-06',
      summary: { orders_total: 4, vouchers_allocated: 4, matched: 0, drifted: 4, unmatched: 0 },
      drifts: [
        // The voucher's code as a bare string, on both sides.
        drift('ord_1', 'X7K2-Q9ZT-LEAK-5555', 'ABCD-EFGH-IJKL-9876'),
        // As an object: a voucher record, and a value.
        drift('ord_2', { voucher_id: 'vch_2', code: 'OBJCODE-LEAK-4444' }, { value: 'VALUE-LEAK-3333' }),
        // A list of codes; a card number as a number.
        drift('ord_3', ['LISTED-LEAK-2222'], 4111111111111111),
        // Ids and words are no codes.
        drift('ord_4', 'vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', 'no vendor record'),
      ],
      generated_at: '2026-11-07T00:00:00Z',
    };
  });

  it('are masked to their last 4 in every format unless they are ids, with a note that --reveal shows them', async () => {
    for (const argv of [['--json'], [], ['--output', 'table'], ['--output', 'ndjson'], ['--output', 'csv']]) {
      for (const tty of [false, true]) {
        const r = await cli(['2026-11-06', ...argv], tty);
        expect(r.code, r.stderr).toBe(0);
        for (const code of CODES) expect(r.stdout, `${argv.join(' ')} ${tty}`).not.toContain(code);
        for (const code of CODES) expect(r.stderr).not.toContain(code);
        expect(r.stdout).toContain('••••••••5555');
        expect(r.stdout).toContain('vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CE');
        expect(r.stdout).toContain('no vendor record');
        expect(r.stderr).toContain('Codes are masked: add --reveal to show them');
      }
    }
    const json = await cli(['2026-11-06', '--json']);
    const drifts = (JSON.parse(json.stdout) as { drifts: Record<string, unknown>[] }).drifts;
    expect(drifts.map((d) => [d.our_allocation, d.vendor_record])).toEqual([
      ['••••••••5555', '••••••••9876'],
      [{ voucher_id: 'vch_2', code: '••••••••4444' }, { value: '••••••••3333' }],
      [['••••••••2222'], '••••••••1111'],
      ['vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', 'no vendor record'],
    ]);
    expect(json.stderr).toContain('"code":"CODES_MASKED"');
  });

  it('--reveal shows them as received, with no note', async () => {
    const json = await cli(['2026-11-06', '--json', '--reveal']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(bodies['2026-11-06']);
    expect(json.stderr).not.toContain('CODES_MASKED');
    const csv = await cli(['2026-11-06', '--output', 'csv', '--reveal']);
    expect(csv.stdout).toContain('ord_1,amz,p1,X7K2-Q9ZT-LEAK-5555,ABCD-EFGH-IJKL-9876,');
  });

  it('a report of ids only has no note', async () => {
    bodies['2026-11-07'] = {
      date: '2026-11-07',
      summary: { orders_total: 1, vouchers_allocated: 1, matched: 0, drifted: 1, unmatched: 0 },
      drifts: [drift('ord_5', 'vch_5', 'no vendor record')],
      generated_at: '2026-11-08T00:00:00Z',
    };
    const r = await cli(['2026-11-07', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(bodies['2026-11-07']);
    expect(r.stderr).not.toContain('CODES_MASKED');
  });
});
