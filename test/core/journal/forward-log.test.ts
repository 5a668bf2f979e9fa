import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forwardOutcomes, openForwardLog, readForwardLog, type ForwardRecord } from '../../../src/core/journal/forward-log.js';

function record(eventId: string, outcome: ForwardRecord['outcome'], attempt = 1, body?: number): ForwardRecord {
  return {
    time: '2026-11-22T09:30:00.000Z',
    event_id: eventId,
    url: 'http://127.0.0.1:3000/hook',
    attempt,
    max_attempts: 6,
    status: outcome === 'delivered' ? 200 : 500,
    duration_ms: 3,
    error: null,
    outcome,
    source: 'listen',
    ...(body ? { body_number: body } : {}),
  };
}

describe('the forward log', () => {
  it('holds each record as soon as it is appended: nothing is left queued in the process for a kill -9 to lose', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouchers-fwdlog-')), 'sub', 'events.forwards.ndjson');
    const log = openForwardLog(path);
    // Not awaited: a process killed right after the app answered has no later turn of its loop.
    for (let i = 0; i < 50; i++) void log.append(record(`evt_${i}`, 'delivered'));
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as ForwardRecord).event_id)).toEqual(Array.from({ length: 50 }, (_, i) => `evt_${i}`));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('an append that cannot be written rejects, and later appends still go', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-fwdlog-'));
    // The path is a directory: appending fails.
    await expect(openForwardLog(dir).append(record('evt_a', 'failed'))).rejects.toThrow();
    const path = join(dir, 'events.forwards.ndjson');
    await openForwardLog(path).append(record('evt_b', 'delivered'));
    expect((await readForwardLog(path)).map((r) => r.event_id)).toEqual(['evt_b']);
  });

  it('a body counts as delivered once any attempt of it answered 2xx; otherwise its last outcome', () => {
    const outcomes = forwardOutcomes([
      record('evt_a', 'retrying'),
      record('evt_a', 'delivered', 2),
      record('evt_a', 'failed', 1),
      record('evt_b', 'retrying'),
      record('evt_b', 'failed', 2, 2),
    ]);
    expect(Object.fromEntries(outcomes)).toEqual({ '1 evt_a': 'delivered', '1 evt_b': 'retrying', '2 evt_b': 'failed' });
  });
});
