import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors/index.js';
import { openRequestLog } from '../../../src/core/journal/request-log.js';
import type { RequestLogEntry } from '../../../src/core/journal/types.js';

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  time: '2026-11-22T09:30:00.000Z',
  profile: 'default',
  method: 'GET',
  path: '/wallets',
  status: 200,
  duration_ms: 12,
  attempt: 1,
  trace_id: 'a'.repeat(32),
  idempotency_key: null,
  error_code: null,
  ...over,
});

describe('request log', () => {
  it('creates the directory and a 0600 file, newest last', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'vouchers-log-')), 'nested', 'config');
    const log = openRequestLog(dir);
    expect(await log.read()).toEqual([]);
    log.append(entry({ path: '/one' }));
    log.append(entry({ path: '/two', status: 503, error_code: 'SERVICE_UNAVAILABLE' }));
    log.append(entry({ path: '/three', status: null, error_code: 'ECONNREFUSED' }));
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
    expect((await log.read()).map((e) => e.path)).toEqual(['/one', '/two', '/three']);
    expect((await log.read({ failedOnly: true })).map((e) => e.path)).toEqual(['/two', '/three']);
    expect((await log.read({ limit: 2 })).map((e) => e.path)).toEqual(['/two', '/three']);
  });

  it('an unreadable log is a usage error naming the file, not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    mkdirSync(join(dir, 'requests.log'));
    const e = await openRequestLog(dir)
      .read()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toContain(`cannot read the request log ${join(dir, 'requests.log')}: it is a directory`);
  });

  it('tightens a loose file mode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    writeFileSync(join(dir, 'requests.log'), '');
    chmodSync(join(dir, 'requests.log'), 0o644);
    const log = openRequestLog(dir);
    log.append(entry());
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
  });

  it('writes only the known fields', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const log = openRequestLog(dir);
    log.append({ ...entry(), body: '{"code":"SECRET-CODE"}', api_secret: 'sk_live_x' } as RequestLogEntry);
    const text = readFileSync(log.path, 'utf8');
    expect(text).not.toContain('SECRET-CODE');
    expect(text).not.toContain('sk_live_x');
  });

  it('stays bounded: past half its bound the log is renamed aside, and both parts are read, oldest first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const log = openRequestLog(dir, { maxBytes: 4096 });
    for (let i = 0; i < 200; i++) log.append(entry({ path: `/orders/${i}` }));
    const sizeOf = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    const line = Buffer.byteLength(readFileSync(`${log.path}.1`, 'utf8').split('\n')[0]!) + 1;
    expect(sizeOf(log.path) + sizeOf(`${log.path}.1`)).toBeLessThanOrEqual(4096 + 2 * line);
    const entries = await log.read();
    expect(entries.at(-1)!.path).toBe('/orders/199');
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.every((e, i, a) => i === 0 || Number(e.path.split('/')[2]) === Number(a[i - 1]!.path.split('/')[2]) + 1)).toBe(true);
    expect(existsSync(`${log.path}.lock`)).toBe(false);
  });

  it('loses no line another process writes to the log while it is renamed aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const small = openRequestLog(dir, { maxBytes: 4096 });
    small.append(entry({ path: '/orders/0' }));
    // Another process's descriptor, opened before the rename; its line goes out after it,
    // as one already past its check would write it.
    const other = openSync(small.path, 'a');
    const sizeOf = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    let i = 1;
    // Until the log at the path shrinks: it was renamed aside (or, as before, cut and replaced).
    for (let before = 0; sizeOf(small.path) >= before && i < 1_000;) {
      before = sizeOf(small.path);
      small.append(entry({ path: `/orders/${i++}` }));
    }
    expect(i).toBeLessThan(1_000);
    writeSync(other, JSON.stringify(entry({ path: `/orders/${i++}` })) + '\n');
    closeSync(other);
    small.append(entry({ path: `/orders/${i++}` }));
    expect((await small.read()).map((e) => e.path)).toEqual(Array.from({ length: i }, (_, n) => `/orders/${n}`));
  });

  it('a process writing to the part renamed aside goes on in the new log; two over the bound at once rename one log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const a = openRequestLog(dir, { maxBytes: 8192 });
    const b = openRequestLog(dir, { maxBytes: 8192 });
    let n = 0;
    // Lines alternate between the two writers, each with its own descriptor and its own count.
    for (let k = 0; k < 300; k++) (k % 2 ? a : b).append(entry({ path: `/orders/${n++}` }));
    const paths = (await a.read()).map((e) => Number(e.path.split('/')[2]));
    // Whatever the bound dropped is older than everything kept: the rest is every line, in order.
    expect(paths.at(-1)).toBe(n - 1);
    expect(paths).toEqual(Array.from({ length: paths.length }, (_, k) => paths[0]! + k));
    expect(paths.length).toBeGreaterThan(20);
    const sizeOf = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    expect(sizeOf(a.path) + sizeOf(`${a.path}.1`)).toBeLessThanOrEqual(8192 + 1024);
  });

  it('says in the part renamed aside when it replaced an earlier part: lines older than the log were dropped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const log = openRequestLog(dir, { maxBytes: 4096 });
    const previous = `${log.path}.1`;
    const marked = () => readFileSync(previous, 'utf8').includes('{"earlier_part_dropped":true}');
    let i = 0;
    while (!existsSync(previous) && i < 1_000) log.append(entry({ path: `/orders/${i++}` }));
    // The first part renamed aside replaced nothing: the log is whole.
    expect(marked()).toBe(false);
    const first = readFileSync(previous, 'utf8');
    while (readFileSync(previous, 'utf8') === first && i < 1_000) log.append(entry({ path: `/orders/${i++}` }));
    expect(marked()).toBe(true);
    // The marker is no request, and every line kept is read in order.
    const paths = (await log.read()).map((e) => Number(e.path.split('/')[2]));
    expect(paths.at(-1)).toBe(i - 1);
    expect(paths).toEqual(Array.from({ length: paths.length }, (_, k) => paths[0]! + k));
  });

  it('survives a torn last line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    openRequestLog(dir).append(entry({ path: '/before' }));
    appendFileSync(join(dir, 'requests.log'), '{"time":"2026-11-22T09:3');
    const log = openRequestLog(dir);
    log.append(entry({ path: '/after' }));
    expect((await log.read()).map((e) => e.path)).toEqual(['/before', '/after']);
  });

  it('every line is in the file once append returns; a log replaced or removed meanwhile gets the next line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const log = openRequestLog(dir);
    log.append(entry({ path: '/one' }));
    expect(readFileSync(log.path, 'utf8')).toContain('"/one"');
    // Another process trims the log: its newest half renamed over the file.
    writeFileSync(join(dir, 'trimmed'), readFileSync(log.path));
    renameSync(join(dir, 'trimmed'), log.path);
    log.append(entry({ path: '/two' }));
    expect((await log.read()).map((e) => e.path)).toEqual(['/one', '/two']);
    // Removed by hand: the next line starts a new log, mode 0600.
    unlinkSync(log.path);
    log.append(entry({ path: '/three' }));
    expect((await log.read()).map((e) => e.path)).toEqual(['/three']);
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
  });

  it('never throws when it cannot write, and reports once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-log-'));
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    const log = openRequestLog(join(blocker, 'sub'));
    const errors: Error[] = [];
    log.onError?.((e) => errors.push(e));
    expect(() => {
      log.append(entry());
      log.append(entry());
    }).not.toThrow();
    expect(errors).toHaveLength(1);
  });
});
