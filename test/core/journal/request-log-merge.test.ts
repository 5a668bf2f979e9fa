/**
 * The request log's sending lines (a keyed write logged as it leaves) and their merging on
 * read: an answered one is counted once, by its answer, never as a failure; one without
 * its answer is `unanswered` (and failed: no response), unless a later 2xx to the same key
 * settled it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRequestLog } from '../../../src/core/journal/request-log.js';
import { isFailed, mergeSending } from '../../../src/core/journal/request-log-merge.js';
import type { RequestLogEntry } from '../../../src/core/journal/types.js';

const T1 = '2026-11-22T09:30:00.000Z';
const T2 = '2026-11-22T09:31:00.000Z';
const T3 = '2026-11-22T09:32:00.000Z';

const write = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  time: T1,
  profile: 'default',
  method: 'POST',
  path: '/orders',
  status: 201,
  duration_ms: 80,
  attempt: 1,
  trace_id: 'a'.repeat(32),
  idempotency_key: 'key-1',
  error_code: null,
  ...over,
});
/** The sending line of `write(over)`, as read from the file. */
const sending = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  ...write(over),
  status: null,
  duration_ms: 0,
  error_code: null,
  unanswered: true,
});

describe('mergeSending', () => {
  it('a sending line answered later is left out: the answer stands for it (another trace ID from the server too)', () => {
    const answer = write({ trace_id: 'e'.repeat(32) });
    const merged = mergeSending([sending(), write({ method: 'GET', path: '/wallets', idempotency_key: null, status: 200 }), answer]);
    expect(merged).toEqual([write({ method: 'GET', path: '/wallets', idempotency_key: null, status: 200 }), answer]);
    expect(merged.filter(isFailed)).toEqual([]);
  });

  it('each attempt pairs with its own answer; the last without one stays unanswered, counted as failed once', () => {
    const merged = mergeSending([sending(), write({ status: 503, error_code: 'SERVICE_UNAVAILABLE' }), sending({ time: T2, attempt: 2 })]);
    expect(merged.map((e) => [e.attempt, e.status, e.unanswered])).toEqual([
      [1, 503, undefined],
      [2, null, true],
    ]);
    expect(merged.filter(isFailed)).toHaveLength(2);
  });

  it('writes of two processes interleaved: the killed one stays unanswered, the other is answered', () => {
    const merged = mergeSending([
      sending({ idempotency_key: 'killed' }),
      sending({ time: T2, idempotency_key: 'done' }),
      write({ time: T2, idempotency_key: 'done' }),
    ]);
    expect(merged.map((e) => [e.idempotency_key, e.status, e.unanswered])).toEqual([
      ['killed', null, true],
      ['done', 201, undefined],
    ]);
  });

  it('a 2xx to the key after the 24 hours the server keeps it settles nothing: it may be a second write', () => {
    const day = (h: number) => new Date(Date.parse(T1) + h * 3_600_000).toISOString();
    const late = mergeSending([sending(), sending({ time: day(25) }), write({ time: day(25), status: 201 })]);
    expect(late[0]).toMatchObject({ unanswered: true });
    expect(late[0]!.answered_by_retry).toBeUndefined();
    // Within them it is the first write replayed (counted from the key's first use).
    const inTime = mergeSending([sending(), sending({ time: day(23) }), write({ time: day(23), status: 201 })]);
    expect(inTime[0]).toMatchObject({ unanswered: true, answered_by_retry: day(23) });
  });

  it('retried later with the same key and answered 2xx: settled (answered_by_retry), not failed, the retry counted once', () => {
    const merged = mergeSending([sending(), sending({ time: T2 }), write({ time: T2, status: 200 })]);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({ status: null, unanswered: true, answered_by_retry: T2 });
    expect(merged[1]).toMatchObject({ status: 200, time: T2 });
    expect(merged.filter(isFailed)).toEqual([]);
  });

  it('not settled by a retry refused or still in progress, nor by a 2xx for the key under another profile or path', () => {
    const merged = mergeSending([
      sending(),
      sending({ time: T2 }),
      write({ time: T2, status: 409, error_code: 'IDEMPOTENCY_KEY_IN_PROGRESS' }),
      write({ time: T3, profile: 'other', status: 201 }),
      write({ time: T3, path: '/payouts', status: 201 }),
    ]);
    expect(merged[0]).toMatchObject({ unanswered: true });
    expect(merged[0]!.answered_by_retry).toBeUndefined();
    expect(isFailed(merged[0]!)).toBe(true);
  });

  it('an attempt stopped in flight (INTERRUPTED: SIGTERM, Ctrl-C) had no answer either: unanswered, with its code, until a 2xx retry', () => {
    const stopped = write({ status: null, duration_ms: 1200, error_code: 'INTERRUPTED' });
    const merged = mergeSending([sending(), stopped]);
    expect(merged).toEqual([{ ...stopped, unanswered: true }]);
    expect(merged.filter(isFailed)).toHaveLength(1);
    const retried = mergeSending([sending(), stopped, sending({ time: T2 }), write({ time: T2, status: 200 })]);
    expect(retried[0]).toMatchObject({ error_code: 'INTERRUPTED', unanswered: true, answered_by_retry: T2 });
    // A bulk row stopped in flight (no sending line: its journal holds the key) is left as it is.
    const bulk = [write({ status: null, error_code: 'INTERRUPTED' })];
    expect(mergeSending(bulk)).toBe(bulk);
  });

  it('an attempt that timed out or lost its connection after it was sent is unanswered too, with its code, until a 2xx retry', () => {
    const timedOut = write({ status: null, duration_ms: 30_000, error_code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(mergeSending([sending(), timedOut])).toEqual([{ ...timedOut, unanswered: true }]);
    const reset = write({ status: null, error_code: 'ECONNRESET' });
    const retried = mergeSending([sending(), reset, sending({ time: T2, attempt: 2 }), write({ time: T2, attempt: 2, status: 201 })]);
    expect(retried[0]).toMatchObject({ error_code: 'ECONNRESET', unanswered: true, answered_by_retry: T2 });
    // An answer, even an error, is an answer.
    expect(mergeSending([sending(), write({ status: 503, error_code: 'HTTP_503' })])).toEqual([
      write({ status: 503, error_code: 'HTTP_503' }),
    ]);
  });

  it('a 2xx logged shows_answer with no shown line is answer_not_shown (done, never seen); its own shown line settles it', () => {
    const answered = write({ shows_answer: true });
    const { shows_answer: _, ...read } = answered;
    expect(mergeSending([sending(), answered])).toEqual([{ ...read, answer_not_shown: true }]);
    // The shown line names its attempt: time, profile, method, path, attempt and key.
    const shown = new Set([JSON.stringify([T1, 'default', 'POST', '/orders', 1, 'key-1'])]);
    expect(mergeSending([sending(), answered], undefined, shown)).toEqual([read]);
    // Not a failure: the server did it.
    expect(mergeSending([sending(), answered]).filter(isFailed)).toEqual([]);
  });

  it('never marks a line without shows_answer (logged before the CLI wrote shown lines, or by a bulk run), nor an error answer', () => {
    const old = [sending(), write()];
    expect(mergeSending(old)).toEqual([write()]);
    const bulk = [write({ status: 201 })];
    expect(mergeSending(bulk)).toBe(bulk);
    const refused = write({ status: 409, error_code: 'INSUFFICIENT_INVENTORY' });
    expect(mergeSending([sending(), refused])).toEqual([refused]);
  });

  it('a later answer to the same key that was shown (the replay) settles one not shown, within the 24 hours the server keeps the key', () => {
    const day = (h: number) => new Date(Date.parse(T1) + h * 3_600_000).toISOString();
    const shownAt = (time: string) => new Set([JSON.stringify([time, 'default', 'POST', '/orders', 1, 'key-1'])]);
    const first = write({ shows_answer: true });
    const replay = (time: string) => write({ time, shows_answer: true, trace_id: 'b'.repeat(32) });
    const settled = mergeSending([first, replay(day(2))], undefined, shownAt(day(2)));
    expect(settled.map((e) => e.answer_not_shown)).toEqual([undefined, undefined]);
    // A replay not shown either settles nothing: both are listed.
    const neither = mergeSending([first, replay(day(2))]);
    expect(neither.map((e) => e.answer_not_shown)).toEqual([true, true]);
    expect(neither[1]).toMatchObject({ key_first_sent: T1 });
    // After the key's 24 hours the same key may have done it again: the first stays listed.
    const late = mergeSending([first, replay(day(25))], undefined, shownAt(day(25)));
    expect(late.map((e) => e.answer_not_shown)).toEqual([true, undefined]);
    // Another profile's or path's answer with the key is another write.
    const other = mergeSending([first, write({ time: T2, path: '/payouts', shows_answer: true })], undefined, shownAt(T2));
    expect(other[0]).toMatchObject({ answer_not_shown: true });
  });

  it('a log without sending lines is returned as it is', () => {
    const entries = [write(), write({ time: T2 })];
    expect(mergeSending(entries)).toBe(entries);
  });
});

describe('the file log', () => {
  it('writes a sending line with only the entry fields and `sending`; read merges it; limit counts merged entries', async () => {
    const log = openRequestLog(mkdtempSync(join(tmpdir(), 'vouchers-log-')));
    const answered = write();
    const { unanswered: _, ...line } = sending();
    log.sending?.(line);
    expect(JSON.parse(readFileSync(log.path, 'utf8'))).toEqual({ ...line, sending: true });
    expect(await log.read()).toEqual([{ ...line, unanswered: true }]);
    log.append(answered);
    log.sending?.({ ...line, time: T2, idempotency_key: 'key-2' });
    log.append(write({ time: T3, method: 'GET', path: '/wallets', idempotency_key: null, status: 200 }));
    expect((await log.read()).map((e) => [e.time, e.status, e.unanswered])).toEqual([
      [T1, 201, undefined],
      [T2, null, true],
      [T3, 200, undefined],
    ]);
    expect((await log.read({ limit: 2 })).map((e) => e.time)).toEqual([T2, T3]);
    expect((await log.read({ failedOnly: true })).map((e) => e.idempotency_key)).toEqual(['key-2']);
  });

  it('writes a shown line that a reader before it skips (no time or method of its own); read pairs it with its answer', async () => {
    const log = openRequestLog(mkdtempSync(join(tmpdir(), 'vouchers-log-')));
    const answered = write({ shows_answer: true });
    const { shows_answer: _, ...read } = answered;
    log.append(answered);
    log.append(write({ time: T2, idempotency_key: 'key-2', shows_answer: true }));
    expect(await log.read()).toEqual([
      { ...read, answer_not_shown: true },
      { ...read, time: T2, idempotency_key: 'key-2', answer_not_shown: true },
    ]);
    log.shown?.(answered);
    const lines = readFileSync(log.path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    const shown = JSON.parse(lines[2]!) as Record<string, unknown>;
    expect(shown).toEqual({
      shown: { time: T1, profile: 'default', method: 'POST', path: '/orders', attempt: 1, idempotency_key: 'key-1' },
    });
    expect(shown.time).toBeUndefined();
    expect(shown.method).toBeUndefined();
    expect(await log.read()).toEqual([read, { ...read, time: T2, idempotency_key: 'key-2', answer_not_shown: true }]);
  });
});
