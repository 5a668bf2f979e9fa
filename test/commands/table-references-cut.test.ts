/**
 * References cut to fit a narrow terminal are cut in their middle, both ends shown: the
 * references of a bulk file (`spring-promo-2026-batch-0001`, `…-0002`) differ only at their
 * end, and cut at their end they all read `spring-promo-…`, as if the same. The start stays
 * too, so references of different runs are told apart as well. In `orders list` and in the
 * table of records of another shape (a `reference` field of any server's list).
 */
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutMiddle } from '../../src/core/output/cells.js';
import { tableHeader, tableRows } from '../helpers/cli-text.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

const REFERENCES = ['spring-promo-2026-batch-0001', 'spring-promo-2026-batch-0002', 'spring-promo-2026-batch-0003'];
/** Ids under a name of the server's own (`batch`): one word each, cut in their middle too. */
const BATCHES = ['import-2026-11-21-run-0001', 'import-2026-11-21-run-0002', 'import-2026-11-21-run-0003'];

const order = (n: number, reference: string) => ({
  order_id: `ord_${n}`,
  status: 'DELIVERED',
  items: [{ product_id: 'northwind-store-us', denomination: 25, quantity: 1 }],
  total_amount: '25.00',
  currency: 'USD',
  reference,
  fulfilled_from: 'CACHE',
  created_at: '2026-11-21T10:00:00Z',
  updated_at: '2026-11-21T10:00:00Z',
});

let server: LoopbackServer;
/** Whether the list answered holds records of another shape (rows with a reference and a note). */
let otherShape = false;
beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => {
    const rows = otherShape
      ? REFERENCES.map((r, i) => ({ row: i + 1, reference: r, batch: BATCHES[i], note: 'ordered from the spring promotion file' }))
      : REFERENCES.map((r, i) => order(i + 1, r));
    sendJson(res, 200, { data: rows, has_more: false, next_cursor: null });
  });
});
afterAll(async () => {
  await server.close();
});

/** A cut reference: a start of it, an ellipsis, an end of it, each end at least a few cells. */
function expectCutInMiddle(cell: string, full: string): void {
  if (cell === full) return;
  const at = cell.indexOf('…');
  expect(at, `${cell} / ${full}`).toBeGreaterThanOrEqual(3);
  const [head, tail] = [cell.slice(0, at), cell.slice(at + 1)];
  expect(tail.length, `${cell} / ${full}`).toBeGreaterThanOrEqual(4);
  expect(full.startsWith(head) && full.endsWith(tail), `${cell} / ${full}`).toBe(true);
}

describe('references cut to fit a terminal', () => {
  it('orders list on 56 columns: each reference cut in its middle, ending in its own number', async () => {
    const r = await runCli(['orders', 'list'], { env: cliEnvFor(server), tty: true, columns: 56 });
    expect(r.code, r.stderr).toBe(0);
    const header = tableHeader(r.stdout);
    const at = header.findIndex((h) => h.startsWith('REFER'));
    expect(at, r.stdout).toBeGreaterThanOrEqual(0);
    const cells = tableRows(r.stdout).map((row) => row[at]!);
    expect(
      cells.some((c, i) => c !== REFERENCES[i]),
      r.stdout,
    ).toBe(true);
    cells.forEach((c, i) => expectCutInMiddle(c, REFERENCES[i]!));
    // Told apart: no two cut alike.
    expect(new Set(cells).size).toBe(REFERENCES.length);
  });

  it('a list of records of another shape (their own fields as columns): the reference, and ids under another name, cut in their middle too', async () => {
    otherShape = true;
    try {
      const r = await runCli(['transactions', 'list'], { env: cliEnvFor(server), tty: true, columns: 56 });
      expect(r.code, r.stderr).toBe(0);
      const header = tableHeader(r.stdout);
      for (const [name, full] of [
        ['REFER', REFERENCES],
        ['BATCH', BATCHES],
      ] as const) {
        const at = header.findIndex((h) => h.startsWith(name));
        expect(at, r.stdout).toBeGreaterThanOrEqual(0);
        const cells = tableRows(r.stdout).map((row) => row[at]!);
        expect(
          cells.some((c, i) => c !== full[i]),
          r.stdout,
        ).toBe(true);
        cells.forEach((c, i) => expectCutInMiddle(c, full[i]!));
        expect(new Set(cells).size).toBe(full.length);
      }
      // Free text is still cut at its end.
      const note = tableRows(r.stdout)[0]![header.findIndex((h) => h.startsWith('NO'))]!;
      expect(note === 'ordered from the spring promotion file' || note.endsWith('…'), note).toBe(true);
    } finally {
      otherShape = false;
    }
  });
});

describe('cutMiddle', () => {
  it('keeps as much of the start as of the end (the end the odd cell), in cells, with the ellipsis given', () => {
    expect(cutMiddle('spring-promo-2026-batch-0001', 12)).toBe('sprin…h-0001');
    expect(cutMiddle('spring-promo-2026-batch-0001', 12, '...')).toBe('spri...-0001');
    expect(cutMiddle('batch-0001', 10)).toBe('batch-0001');
    // Wide characters are kept whole, the cut a cell short rather than across one.
    const cut = cutMiddle('ギフト券キャンペーン-0001', 11);
    expect(stringWidth(cut)).toBeLessThanOrEqual(11);
    expect(cut.endsWith('-0001')).toBe(true);
    expect(cut.startsWith('ギフ')).toBe(true);
  });
});
