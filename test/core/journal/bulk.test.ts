/** The bulk journal: header, fsynced keys, results, torn lines, reading back. */
import { mkdtempSync, readFileSync, statSync, appendFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  batchIdFor,
  batchTarget,
  BulkJournal,
  isBatchId,
  isDefiniteRefusal,
  journalPath,
  listBatches,
  NOTED_ROWS,
  parseJournal,
  rowOutcome,
  sha256Hex,
  type BulkRow,
} from '../../../src/core/journal/bulk.js';
import { okResult } from '../../helpers/journal.js';

const rows: BulkRow[] = [
  { row: 2, product_id: 'sbx-instant', denomination: 10, quantity: 1 },
  { row: 3, product_id: 'sbx-instant', denomination: 25, quantity: 2, reference: 'r-3' },
];

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'vouchers-bulk-'));
}

describe('batch ids', () => {
  it('derive from the content: same file, same batch; different file, different batch', () => {
    const t = batchTarget('http://127.0.0.1:4010/api/v1', 'vk_test_1');
    const a = batchIdFor('product_id,denomination\nsbx-instant,10\n', t);
    expect(a).toBe(batchIdFor(Buffer.from('product_id,denomination\nsbx-instant,10\n'), t));
    expect(a).not.toBe(batchIdFor('product_id,denomination\nsbx-instant,25\n', t));
    // The same file against another server or key is another batch: it orders every row there.
    expect(a).not.toBe(batchIdFor('product_id,denomination\nsbx-instant,10\n', batchTarget('https://partner.example/api/v1', 'vk_test_1')));
    expect(a).not.toBe(batchIdFor('product_id,denomination\nsbx-instant,10\n', batchTarget('http://127.0.0.1:4010/api/v1', 'vk_live_2')));
    expect(batchTarget('http://127.0.0.1:4010/api/v1/', 'vk_test_1')).toBe(batchTarget('http://127.0.0.1:4010/api/v1', 'vk_test_1'));
    expect(batchTarget('http://127.0.0.1:4010/api/v1', 'vk_test_1')).not.toContain('vk_test_1');
    expect(isBatchId(a)).toBe(true);
    expect(a).toMatch(/^bat_[0-9a-f]{20}$/);
  });

  it('refuse path tricks', () => {
    expect(isBatchId('../../etc/passwd')).toBe(false);
    expect(() => journalPath('/tmp', 'bat_../../x')).toThrow();
  });
});

describe('BulkJournal', () => {
  it('writes the header, keys before results, and reads everything back', async () => {
    const d = dir();
    const id = batchIdFor('x', 't');
    const j = await BulkJournal.create(d, {
      batch_id: id,
      source: 'orders.csv',
      sha256: sha256Hex('x'),
      created_at: '2026-11-22T10:00:00.000Z',
      rows,
    });
    await j.appendKey(2, 'key-a', '2026-11-22T10:00:00.000Z');
    await j.appendResult(okResult(2, 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'));
    await j.appendKey(3, 'key-b', '2026-11-22T10:00:00.000Z');
    await j.close();

    const path = journalPath(d, id);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(['batch', 'key', 'result', 'key']);

    const state = await BulkJournal.read(d, id);
    expect(state?.header.rows).toEqual(rows);
    expect(state?.keys.get(2)).toBe('key-a');
    expect(state?.keys.get(3)).toBe('key-b');
    expect(state?.results.get(2)?.ok).toBe(true);
    expect(state?.results.has(3)).toBe(false);
  });

  it('refuses to create a batch twice; reopening appends', async () => {
    const d = dir();
    const id = batchIdFor('y', 't');
    const header = { batch_id: id, source: null, sha256: sha256Hex('y'), created_at: '2026-11-22T10:00:00.000Z', rows };
    await (await BulkJournal.create(d, header)).close();
    await expect(BulkJournal.create(d, header)).rejects.toThrow();
    const j = await BulkJournal.open(d, id);
    await j!.appendKey(2, 'key-z', 'now');
    await j!.close();
    expect((await BulkJournal.read(d, id))?.keys.get(2)).toBe('key-z');
    expect(await BulkJournal.open(d, batchIdFor('none', 't'))).toBeUndefined();
  });

  it('keeps the first key of a row and the latest result', () => {
    const header = JSON.stringify({
      type: 'batch',
      version: 1,
      batch_id: 'bat_0123456789',
      source: null,
      sha256: 'h',
      created_at: 'now',
      rows,
    });
    const text = [
      header,
      JSON.stringify({ type: 'key', row: 2, idempotency_key: 'first', at: 'now' }),
      JSON.stringify({ type: 'key', row: 2, idempotency_key: 'second', at: 'now' }),
      JSON.stringify({ type: 'result', ...okResult(2, 'ord_1'), ok: false }),
      JSON.stringify({ type: 'result', ...okResult(2, 'ord_2') }),
    ].join('\n');
    const state = parseJournal(text, 'j');
    expect(state.keys.get(2)).toBe('first');
    expect(state.results.get(2)?.order_id).toBe('ord_2');
  });

  it('ignores a torn last line (a crash mid-write) but not damage in the middle', async () => {
    const d = dir();
    const id = batchIdFor('z', 't');
    const j = await BulkJournal.create(d, { batch_id: id, source: null, sha256: 'h', created_at: 'now', rows });
    await j.appendKey(2, 'key-a', 'now');
    await j.close();
    appendFileSync(journalPath(d, id), '{"type":"result","row":2,"ok":tr');
    const state = await BulkJournal.read(d, id);
    expect(state?.keys.get(2)).toBe('key-a');
    expect(state?.results.size).toBe(0);
    expect(() => parseJournal('{"type":"batch"}\nnot json\n{"type":"key","row":1}\n', 'j')).toThrow(/line 2/);
    expect(() => parseJournal('', 'j')).toThrow(/no batch header/);
  });

  it("a later attempt replaces the key; an earlier attempt's refusal says nothing about the current key", () => {
    const header = JSON.stringify({
      type: 'batch',
      version: 1,
      batch_id: 'bat_0123456789',
      source: null,
      sha256: 'h',
      created_at: 'now',
      rows,
    });
    const refused = {
      ...okResult(2, 'x'),
      ok: false,
      order_id: null,
      http_status: 402,
      error_code: 'INSUFFICIENT_FUNDS',
      kind: 'rejected',
    };
    const base = [
      header,
      JSON.stringify({ type: 'key', row: 2, idempotency_key: 'k1', at: 'now' }),
      JSON.stringify({ type: 'result', ...refused }),
    ];
    let state = parseJournal(base.join('\n'), 'j');
    expect(rowOutcome(state, 2)).toBe('refused');
    state = parseJournal([...base, JSON.stringify({ type: 'key', row: 2, idempotency_key: 'k2', attempt: 2, at: 'now' })].join('\n'), 'j');
    expect(state.keys.get(2)).toBe('k2');
    expect(state.attempts.get(2)).toBe(2);
    // Attempt 2 was sent without an answer: its outcome is open, it keeps its key.
    expect(rowOutcome(state, 2)).toBe('pending');
    expect(rowOutcome(state, 3)).toBe('pending');
  });

  it('tells definite refusals (nothing created) from unknown outcomes', () => {
    const r = (http_status: number | null, error_code: string | null) => ({ ok: false, http_status, error_code });
    for (const [s, c] of [
      [402, 'INSUFFICIENT_FUNDS'],
      [409, 'INSUFFICIENT_INVENTORY'],
      [403, 'PRODUCT_NOT_AVAILABLE'],
      [404, 'NOT_FOUND'],
      [422, 'VALIDATION_FAILED'],
    ] as const)
      expect(isDefiniteRefusal(r(s, c))).toBe(true);
    for (const [s, c] of [
      [429, 'RATE_LIMIT_EXCEEDED'],
      [503, 'SERVICE_UNAVAILABLE'],
      [500, 'INTERNAL_ERROR'],
      [null, 'ECONNRESET'],
      [409, 'IDEMPOTENCY_KEY_IN_PROGRESS'],
      [422, 'IDEMPOTENCY_KEY_REUSED'],
      [408, 'REQUEST_TIMEOUT'],
      // A 409 without the exact code may be "key in progress": its order may be made.
      [409, 'HTTP_409'],
      [409, null],
      [409, 'CONFLICT'],
      [423, 'LOCKED'],
      [425, 'TOO_EARLY'],
      [422, 'IDEMPOTENCY_KEY_MISMATCH'],
      [400, 'REQUEST_STILL_PROCESSING'],
      // Credentials refused before the key is looked at: an earlier request with it may have ordered.
      [401, 'AUTHENTICATION_FAILED'],
      [401, 'INVALID_SIGNATURE'],
      // So are the source address and a signature, whatever the status a server gives them,
      // and a 403 that is no answer of the server's (a proxy's page: no code of its own).
      [403, 'IP_NOT_ALLOWED'],
      [400, 'INVALID_SIGNATURE'],
      [403, 'SIGNATURE_MISMATCH'],
      [422, 'TIMESTAMP_OUT_OF_WINDOW'],
      [403, 'FORBIDDEN_IP'],
      [403, 'HTTP_403'],
      [403, null],
    ] as const)
      expect(isDefiniteRefusal(r(s, c))).toBe(false);
    expect(isDefiniteRefusal({ ok: true, http_status: 201, error_code: null })).toBe(false);
  });

  it('opening cuts a torn last line off, so the next append starts on its own line', async () => {
    const d = dir();
    const id = batchIdFor('torn', 't');
    const j = await BulkJournal.create(d, { batch_id: id, source: null, sha256: 'h', created_at: 'now', rows });
    await j.appendKey(2, 'key-a', 'now');
    await j.close();
    const whole = readFileSync(journalPath(d, id), 'utf8');
    appendFileSync(journalPath(d, id), '{"type":"key","row":3,"idem');
    const k = await BulkJournal.open(d, id);
    expect(k!.repaired).toBe(27);
    await k!.appendKey(3, 'key-b', 'now');
    await k!.close();
    expect(readFileSync(journalPath(d, id), 'utf8').startsWith(whole)).toBe(true);
    const state = await BulkJournal.read(d, id);
    expect(state?.keys.get(3)).toBe('key-b');
  });
});

describe('the batches folder', () => {
  it('a file where the folder should be is a clear configuration error (exit 2), not an unexpected crash', async () => {
    const d = dir();
    writeFileSync(join(d, 'batches'), 'not a folder');
    await expect(listBatches(d)).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringContaining('is not a folder') });
    expect(await listBatches(mkdtempSync(join(tmpdir(), 'vouchers-bulk-none-')))).toEqual([]);
  });
});

describe('rows the summary names', () => {
  it(`counts every row answered without a voucher or an order id, and keeps the first ${NOTED_ROWS} of each`, () => {
    const n = NOTED_ROWS + 5;
    const lines = [JSON.stringify({ type: 'batch', version: 2, batch_id: 'bat_0123456789', source: null, sha256: 'h', created_at: 'now' })];
    for (let row = 2; row < n + 2; row++) {
      lines.push(JSON.stringify({ type: 'result', ...okResult(row, `ord_${row}`), status: 'FAILED', reference: `r-${row}` }));
      lines.push(JSON.stringify({ type: 'result', ...okResult(row + n, null as unknown as string), reference: null }));
    }
    const state = parseJournal(lines.join('\n'), 'j', false);
    expect(state.unfulfilled.count).toBe(n);
    expect(state.unfulfilled.rows).toHaveLength(NOTED_ROWS);
    expect(state.unfulfilled.rows[0]).toEqual({ row: 2, reference: 'r-2', order_id: 'ord_2', status: 'FAILED', trace_id: 'a'.repeat(32) });
    expect(state.unnamed.count).toBe(n);
    expect(state.unnamed.rows).toHaveLength(NOTED_ROWS);
    expect(state.ordered.size).toBe(2 * n);
  });
});
