/**
 * `vouchers log` on a terminal keeps what support needs: the request path, its status and
 * the trace ID, whole, at every width from 60 columns up; then the time and the method, what
 * tells a request apart; an error code mostly empty is left out first, then the attempt
 * number, the duration and an error code that most rows have (and said so on stderr).
 * When even the three kept columns do not fit, the table becomes one block a row.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/core/journal/types.js';
import { ANSI, tableHeader, tableRows, unwrapped } from '../helpers/cli-text.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const LIMITED = '0af7651916cd43dd8448eb211c80319c';
const FOUND = '4bf92f3577b34da6a3ce929d0e0e4736';
const LONG_PATH = '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/codes';

function logDir(paths: [string, string]): string {
  const dir = tempConfigDir();
  const entry = (path: string, status: number, trace: string, error: string | null): RequestLogEntry => ({
    time: '2026-01-31T09:30:00.123Z',
    profile: 'default',
    method: 'POST',
    path,
    status,
    duration_ms: 1234,
    attempt: 2,
    trace_id: trace,
    idempotency_key: 'key-1',
    error_code: error,
  });
  const lines = [entry(paths[0], 429, LIMITED, 'RATE_LIMIT_EXCEEDED'), entry(paths[1], 200, FOUND, null)];
  writeFileSync(join(dir, 'requests.log'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
  return dir;
}

async function onTerminal(configDir: string, columns: number) {
  const r = await runCli(['log'], { configDir, tty: true, columns });
  expect(r.code, r.stderr).toBe(0);
  const text = r.stdout.replace(ANSI, '');
  for (const line of text.trimEnd().split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
  return { ...r, text };
}

describe('vouchers log table at 60, 80 and 120 columns', () => {
  const short = logDir(['/orders', '/wallets']);
  const expected: [number, string[], string][] = [
    [60, ['PATH', 'STATUS', 'TRACE ID'], 'time, method, duration_ms, attempt, error_code'],
    [80, ['TIME', 'PATH', 'STATUS', 'TRACE ID'], 'method, duration_ms, attempt, error_code'],
    [120, ['TIME', 'METHOD', 'PATH', 'STATUS', 'MS', 'TRACE ID', 'ERROR'], 'attempt'],
  ];
  it.each(expected)('at %i columns shows %j, the trace ID whole', async (columns, header, leftOut) => {
    const r = await onTerminal(short, columns);
    expect(tableHeader(r.stdout)).toEqual(header);
    const rows = tableRows(r.stdout);
    const col = (name: string) => rows.map((cells) => cells[header.indexOf(name)]);
    expect(col('TRACE ID')).toEqual([LIMITED, FOUND]);
    expect(col('PATH')).toEqual(['/orders', '/wallets']);
    expect(col('STATUS')).toEqual(['429', '200']);
    if (header.includes('TIME')) expect(col('TIME')).toEqual(['2026-01-31 09:30:00Z', '2026-01-31 09:30:00Z']);
    if (header.includes('ERROR')) expect(col('ERROR')).toEqual(['RATE_LIMIT_EXCEEDED', '']);
    expect(unwrapped(r.stderr)).toContain(`Left out to fit ${columns} columns: ${leftOut}.`);
  });

  it('at 100 columns leaves out an error column mostly empty before the method', async () => {
    const dir = tempConfigDir();
    const entries = ['/webhooks', '/webhooks', '/orders', '/orders', '/orders', '/orders'].map((path, i): RequestLogEntry => ({
      time: `2026-01-31T09:30:0${i}.000Z`,
      profile: 'default',
      method: i === 0 ? 'GET' : 'POST',
      path,
      status: i === 0 ? 404 : 201,
      duration_ms: 52,
      attempt: 1,
      trace_id: `${FOUND.slice(0, -1)}${i}`,
      idempotency_key: null,
      error_code: i === 0 ? 'NOT_FOUND' : null,
    }));
    writeFileSync(join(dir, 'requests.log'), entries.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
    const r = await onTerminal(dir, 100);
    expect(tableHeader(r.stdout)).toEqual(['TIME', 'METHOD', 'PATH', 'STATUS', 'MS', 'TRY', 'TRACE ID']);
    expect(tableRows(r.stdout).map((c) => c[1])).toEqual(['GET', 'POST', 'POST', 'POST', 'POST', 'POST']);
    expect(unwrapped(r.stderr)).toContain('Left out to fit 100 columns: error_code.');
    // With most rows failed the method is still kept: the status already says each failed.
    const failed = entries.map((e, i) => (i < 4 ? { ...e, status: 404, error_code: 'NOT_FOUND' } : e));
    writeFileSync(join(dir, 'requests.log'), failed.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
    expect(tableHeader((await onTerminal(dir, 100)).stdout)).toContain('METHOD');
  });

  it('--failed keeps the error code, what a failed request is looked at for', async () => {
    const r = await runCli(['log', '--failed'], { configDir: short, tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    expect(tableHeader(r.stdout)).toEqual(['PATH', 'STATUS', 'TRACE ID', 'ERROR']);
    expect(tableRows(r.stdout)).toEqual([['/orders', '429', LIMITED, 'RATE_LIMIT_EXCEEDED']]);
  });

  it('a path too long for a table beside the trace ID: one block a row at 60 and 80, whole; a table at 120', async () => {
    const long = logDir(['/orders', LONG_PATH]);
    for (const columns of [60, 80]) {
      const r = await onTerminal(long, columns);
      expect(r.text).not.toContain('┌');
      expect(r.stderr).toContain(`do not fit ${columns} columns: one block a row`);
      const blocks = r.text.trim().split('\n\n');
      expect(blocks).toHaveLength(2);
      expect(blocks[1]).toMatch(new RegExp(`^path +${LONG_PATH}$`, 'm'));
      expect(blocks[1]).toMatch(new RegExp(`^trace_id +${FOUND}$`, 'm'));
      expect(blocks[0]).toMatch(/^error_code +RATE_LIMIT_EXCEEDED$/m);
    }
    const r = await onTerminal(long, 120);
    expect(tableHeader(r.stdout)).toEqual(['TIME', 'PATH', 'STATUS', 'TRACE ID']);
    expect(tableRows(r.stdout).map((c) => [c[1], c[3]])).toEqual([
      ['/orders', LIMITED],
      [LONG_PATH, FOUND],
    ]);
  });

  it('narrower than a trace ID beside its label: the trace ID goes whole onto a line of its own, to be copied', async () => {
    const short = logDir(['/orders', '/wallets']);
    for (const columns of [34, 40]) {
      const r = await onTerminal(short, columns);
      expect(unwrapped(r.stderr)).toContain(`do not fit ${columns} columns: one block a row`);
      const blocks = r.text.trim().split('\n\n');
      expect(blocks).toHaveLength(2);
      for (const [i, trace] of [LIMITED, FOUND].entries()) expect(blocks[i]).toMatch(new RegExp(`^trace_id\n +${trace}$`, 'm'));
      expect(blocks[0]).toMatch(/^path +\/orders$/m);
    }
  });
});
