/** The bulk runner's hand-over of rows to its workers: all of them busy, each row once, its key on disk first. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRows } from '../../src/commands/orders/bulk-runner.js';
import type { ApiClient, ApiResponse, RequestOptions } from '../../src/core/http/types.js';
import { ApiError, NetworkError } from '../../src/core/errors/index.js';
import { BulkJournal, provablyNotSent, readJournalFile, rowDigest, rowOutcome, type BulkRow } from '../../src/core/journal/bulk.js';
import { systemClock } from '../../src/core/time/clock.js';
import { systemIds } from '../../src/core/run/ids.js';

/** The 201 of an order delivered from cache, for the row the request carries. */
function delivered<T>(opts: RequestOptions): ApiResponse<T> {
  const body = opts.body as { reference: string };
  const data = { order_id: `ord_${body.reference}`, status: 'DELIVERED', total_amount: 10, currency: 'USD' };
  return {
    status: 201,
    headers: {},
    data: data as T,
    text: '',
    traceId: 'a'.repeat(32),
    replayed: false,
    attempts: 1,
    idempotencyKey: opts.idempotencyKey,
    durationMs: 0,
  };
}

const ROWS = 50;

function rowsOf(n: number): BulkRow[] {
  return Array.from({ length: n }, (_, i) => ({
    row: i + 2,
    product_id: 'sbx-instant',
    denomination: 10,
    quantity: 1,
    reference: `r-${i}`,
  }));
}

async function journal(): Promise<BulkJournal> {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-runner-'));
  return BulkJournal.create(dir, {
    batch_id: 'bat_runner0001',
    source: 'orders.csv',
    sha256: '0'.repeat(64),
    created_at: new Date().toISOString(),
    row_count: ROWS,
  });
}

/**
 * A client whose answers are held until `concurrency` requests are in flight at once (or
 * nothing else can arrive): a runner that lets a worker go idle never reaches it.
 */
function heldClient(j: BulkJournal, concurrency: number) {
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  const sent: string[] = [];
  const keyOnDiskFirst: boolean[] = [];
  let remaining = ROWS;
  const release = () => {
    for (const go of waiting.splice(0)) go();
  };
  const client: ApiClient = {
    async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
      const key = opts.idempotencyKey as string;
      sent.push(key);
      // The key was journalled (and synced) before the request left.
      keyOnDiskFirst.push([...j.state.keys.values()].includes(key));
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length >= Math.min(concurrency, remaining)) release();
      });
      inFlight -= 1;
      remaining -= 1;
      return delivered<T>(opts);
    },
    async close() {},
  };
  return { client, sent, keyOnDiskFirst, most: () => most };
}

/** runRows on the system clock and ids. */
function runAll(
  rows: Iterable<BulkRow> | AsyncIterable<BulkRow>,
  client: ApiClient,
  j: BulkJournal,
  signal: AbortSignal,
  concurrency: number,
) {
  return runRows(rows, { client, journal: j, clock: systemClock, ids: systemIds, signal, concurrency });
}

/**
 * A client whose every request fails a turn later with `error()`; `calls()` counts the
 * requests and `sent` notes each as `METHOD key`.
 */
function failingClient(error: () => Error): { client: ApiClient; calls: () => number; sent: string[] } {
  const sent: string[] = [];
  const client: ApiClient = {
    async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
      sent.push(`${opts.method} ${opts.idempotencyKey}`);
      await new Promise((r) => setImmediate(r));
      throw error();
    },
    async close() {},
  };
  return { client, calls: () => sent.length, sent };
}

const refusedForFunds = () =>
  new ApiError({ status: 402, name: 'InsufficientFunds', code: 'INSUFFICIENT_FUNDS', message: 'balance too low', traceId: 't' });

describe('runRows', () => {
  for (const [what, source] of [
    ['rows held in memory (a sync iterable)', (rows: BulkRow[]) => rows],
    [
      'rows read as they come (an async iterable)',
      (rows: BulkRow[]) =>
        (async function* read() {
          for (const r of rows) {
            await Promise.resolve();
            yield r;
          }
        })(),
    ],
  ] as const) {
    it(`${what}: every worker busy, each row sent once, its key journalled before its request`, async () => {
      const j = await journal();
      const concurrency = 7;
      const c = heldClient(j, concurrency);
      const signal = new AbortController().signal;
      const out = await runAll(source(rowsOf(ROWS)), c.client, j, signal, concurrency);
      await j.close();
      expect(out).toEqual({ ran: ROWS, interrupted: false, unsent: [] });
      expect(c.most()).toBe(concurrency);
      expect(c.sent).toHaveLength(ROWS);
      expect(new Set(c.sent).size).toBe(ROWS);
      expect(c.keyOnDiskFirst.every(Boolean)).toBe(true);
      const state = await readJournalFile(j.path, true);
      expect(state.ordered.size).toBe(ROWS);
    });
  }

  it('stops taking rows when the signal fires; the rows keyed and not started are returned as unsent', async () => {
    const j = await journal();
    const stop = new AbortController();
    let answered = 0;
    const client: ApiClient = {
      async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
        await new Promise((r) => setImmediate(r));
        if (++answered === 10) stop.abort();
        return delivered<T>(opts);
      },
      async close() {},
    };
    const out = await runAll(rowsOf(ROWS), client, j, stop.signal, 3);
    await j.close();
    expect(out.interrupted).toBe(true);
    expect(out.ran).toBeGreaterThanOrEqual(10);
    // Every row is either answered or keyed and reported unsent; none was sent twice or lost.
    const state = await readJournalFile(j.path, true);
    expect(state.ordered.size).toBe(out.ran);
    for (const row of out.unsent) expect(state.keys.has(row) && !state.ordered.has(row)).toBe(true);
    expect(state.keys.size).toBe(out.ran + out.unsent.length);
  });

  it('Ctrl-C while rows wait for their pace: those whose request never left are unsent, those that left stay keyed', async () => {
    const j = await journal();
    const stop = new AbortController();
    const waiting: string[] = [];
    const client: ApiClient = {
      async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
        const ref = (opts.body as { reference: string }).reference;
        // r-0 and r-2 leave (then hang); r-1 waits for its pace and never leaves.
        if (ref !== 'r-1') opts.onSend?.();
        waiting.push(ref);
        // Each hangs until Ctrl-C, which comes once all three are waiting.
        const cut = new Promise((_resolve, reject) =>
          stop.signal.addEventListener('abort', () => reject(new Error('interrupted')), { once: true }),
        );
        if (waiting.length === 3) stop.abort();
        await cut;
        throw new Error('unreachable');
      },
      async close() {},
    };
    const out = await runAll(rowsOf(ROWS), client, j, stop.signal, 3);
    await j.close();
    expect(out.interrupted).toBe(true);
    expect(out.ran).toBe(0);
    // Rows 2, 3, 4 are r-0, r-1, r-2.
    expect(out.unsent).toContain(3);
    expect(out.unsent).not.toContain(2);
    expect(out.unsent).not.toContain(4);
  });

  it('a server that cannot be reached: halts after as many rows in a row as workers; only a key no request used is "not sent"', async () => {
    const j = await journal();
    // Rows 3–20 were keyed by an earlier run that stopped without their answers: they may have been sent then.
    for (let row = 3; row <= 20; row++)
      await j.appendKey(row, `key-of-an-earlier-run-${row}`, new Date().toISOString(), 1, { ref: `r-${row - 2}`, digest: 'x' });
    const { client, calls } = failingClient(
      () =>
        new NetworkError('could not connect to 127.0.0.1:9 (ECONNREFUSED); the request was not sent', 't', 'ECONNREFUSED', undefined, {
          mayHaveReached: false,
        }),
    );
    const out = await runAll(rowsOf(ROWS), client, j, new AbortController().signal, 4);
    await j.close();
    expect(out.interrupted).toBe(false);
    expect(out.halted?.after).toBeGreaterThanOrEqual(4);
    expect(out.halted?.last.error_code).toBe('ECONNREFUSED');
    // Four workers: the halt comes within the rows in flight, far from the 50, whether or not
    // the rows' keys were used before (the server is unreachable either way).
    expect(calls()).toBeLessThanOrEqual(8);
    expect(out.ran).toBe(calls());
    const state = await readJournalFile(j.path, true);
    // Only row 2's key is new in this run: "not sent". The others may have been sent before: unknown.
    expect([rowOutcome(state, 2), provablyNotSent(state, 2)]).toEqual(['pending', true]);
    const others = [...state.results.keys()].filter((row) => row !== 2);
    expect(others.length).toBe(calls() - 1);
    for (const row of others) expect([rowOutcome(state, row), provablyNotSent(state, row)]).toEqual(['unknown', false]);
  });
});

describe('a server that stops answering', () => {
  it('every request times out: halts after as many rows in a row as workers, each row unknown (its key kept for the resume), never "not sent"', async () => {
    const j = await journal();
    const { client, calls } = failingClient(
      () =>
        new NetworkError(
          'no response from 127.0.0.1:9 within 1s (TIMEOUT); the request may have reached the server',
          't',
          'TIMEOUT',
          undefined,
          { mayHaveReached: true },
        ),
    );
    const out = await runAll(rowsOf(ROWS), client, j, new AbortController().signal, 4);
    await j.close();
    expect(out.interrupted).toBe(false);
    expect(out.halted).toMatchObject({ unanswered: true, last: { error_code: 'TIMEOUT' } });
    expect(out.halted?.after).toBeGreaterThanOrEqual(4);
    // Four workers: the halt comes within the rows in flight, far from the 50.
    expect(calls()).toBeLessThanOrEqual(8);
    const state = await readJournalFile(j.path, true);
    expect(state.results.size).toBe(calls());
    for (const row of state.results.keys()) expect([rowOutcome(state, row), provablyNotSent(state, row)]).toEqual(['unknown', false]);
  });

  it('timeouts between answers do not halt it: only rows in a row without any answer count', async () => {
    const j = await journal();
    let calls = 0;
    const client: ApiClient = {
      async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
        calls += 1;
        await new Promise((r) => setImmediate(r));
        if (calls % 2 === 0)
          throw new NetworkError('no response within 1s (TIMEOUT); the request may have reached the server', 't', 'TIMEOUT', undefined, {
            mayHaveReached: true,
          });
        return delivered<T>(opts);
      },
      async close() {},
    };
    const out = await runAll(rowsOf(ROWS), client, j, new AbortController().signal, 1);
    await j.close();
    expect(out.halted).toBeUndefined();
    expect(calls).toBe(ROWS);
  });
});

describe('credentials the server refuses', () => {
  it('a 401: no new row starts after the first refusal; the rows refused stay unknown, sent again with their keys on resume', async () => {
    const j = await journal();
    const { client, calls } = failingClient(
      () =>
        new ApiError({
          status: 401,
          name: 'AuthenticationFailed',
          code: 'AUTHENTICATION_FAILED',
          message: 'Authentication failed',
          traceId: 't',
        }),
    );
    const out = await runAll(rowsOf(ROWS), client, j, new AbortController().signal, 4);
    await j.close();
    expect(out.halted).toMatchObject({ after: 1, last: { http_status: 401, error_code: 'AUTHENTICATION_FAILED' } });
    // Only the rows already in flight when the first refusal came: far from the 50.
    expect(calls()).toBeLessThanOrEqual(4);
    const state = await readJournalFile(j.path, true);
    for (const row of state.results.keys()) expect(rowOutcome(state, row)).toBe('unknown');
  });
});

describe('a row refused under a key an earlier request used, its answer lost', () => {
  it('is asked for by reference before it gets a new key: the order the lost answer made is found, not placed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-runner-'));
    const header = {
      batch_id: 'bat_runner0002',
      source: 'orders.csv',
      sha256: '0'.repeat(64),
      created_at: new Date().toISOString(),
      row_count: 1,
    };
    const [row] = rowsOf(1) as [BulkRow];
    // A run keyed the row and sent it, and was killed before its answer came: the key, no result.
    const first = await BulkJournal.create(dir, header);
    await first.appendKey(row.row, 'key-lost-answer', new Date().toISOString(), 1, { ref: row.reference ?? null, digest: rowDigest(row) });
    await first.close();

    // The next run sends it with that key and is refused before the server looks at the key
    // (the funds the lost request spent are gone): refused, and marked so.
    const { client: refusing, sent } = failingClient(refusedForFunds);
    const second = (await BulkJournal.open(dir, header.batch_id))!;
    await runAll([row], refusing, second, new AbortController().signal, 1);
    await second.close();
    expect(sent).toEqual(['POST key-lost-answer']);
    let state = await readJournalFile(second.path, true);
    expect(rowOutcome(state, row.row)).toBe('refused');
    expect(state.results.get(row.row)).toMatchObject({ http_status: 402, after_unknown: true });

    // The run after it asks by reference first, finds the order, and places nothing.
    const asked: string[] = [];
    const finding: ApiClient = {
      async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
        asked.push(`${opts.method} ${opts.path}`);
        if (opts.method !== 'GET') throw new Error('no order may be placed');
        const order = {
          order_id: 'ord_made_by_lost_answer',
          reference: row.reference,
          status: 'DELIVERED',
          total_amount: 10,
          currency: 'USD',
        };
        const data = { data: [order], has_more: false, next_cursor: null };
        return {
          status: 200,
          headers: {},
          data: data as T,
          text: '',
          traceId: 'b'.repeat(32),
          replayed: false,
          attempts: 1,
          idempotencyKey: undefined,
          durationMs: 0,
        };
      },
      async close() {},
    };
    const third = (await BulkJournal.open(dir, header.batch_id))!;
    await runAll([row], finding, third, new AbortController().signal, 1);
    await third.close();
    expect(asked).toEqual(['GET /orders']);
    state = await readJournalFile(third.path, true);
    expect(rowOutcome(state, row.row)).toBe('ordered');
    expect(state.results.get(row.row)).toMatchObject({ ok: true, order_id: 'ord_made_by_lost_answer', found_by_reference: true });
  });

  it('a refusal of a key this run made is no such case: the next run gives the row a new key at once', async () => {
    const j = await journal();
    const [row] = rowsOf(1) as [BulkRow];
    await runAll([row], failingClient(refusedForFunds).client, j, new AbortController().signal, 1);
    await j.close();
    const state = await readJournalFile(j.path, true);
    expect(rowOutcome(state, row.row)).toBe('refused');
    expect(state.results.get(row.row)?.after_unknown).toBeUndefined();
  });
});
