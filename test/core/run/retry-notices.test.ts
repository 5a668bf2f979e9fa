/**
 * Retry notices: a one-shot command says each retry; a long job says the first in full and
 * then at most one line every 30 s, counting the retries it left unsaid by cause.
 */
import { describe, expect, it } from 'vitest';
import { causesWords, retryNotices } from '../../../src/core/run/retry-notices.js';
import { testIO } from '../../helpers/io.js';

function manualClock(): { now: () => number; sleep: () => Promise<void>; at: number } {
  const c = { at: 1_000_000, now: () => c.at, sleep: async () => {} };
  return c;
}

describe('retryNotices', () => {
  it('a one-shot command says every retry in full', () => {
    const io = testIO();
    const clock = manualClock();
    const r = retryNotices({ io, clock, globals: {} });
    r.say('POST /orders: HTTP 503; retrying in 1s (attempt 2 of 4)', 'HTTP 503');
    r.say('POST /orders: HTTP 503; retrying in 2s (attempt 3 of 4)', 'HTTP 503');
    expect(io.stderrText().trim().split('\n')).toEqual([
      'POST /orders: HTTP 503; retrying in 1s (attempt 2 of 4)',
      'POST /orders: HTTP 503; retrying in 2s (attempt 3 of 4)',
    ]);
  });

  it('a long job: the first in full, then one line every 30 s naming the retries left unsaid; the tally counts them all', () => {
    const io = testIO();
    const clock = manualClock();
    const r = retryNotices({ io, clock, globals: {} });
    const tally = r.countRetries();
    r.say('retry A', 'HTTP 503');
    for (let i = 0; i < 5; i++) {
      clock.at += 1_000;
      r.say(`retry ${i}`, i % 2 === 0 ? 'HTTP 429' : 'ECONNRESET');
    }
    expect(io.stderrText()).toBe('retry A\n  further retries of this run are counted and said at most every 30 s\n');
    clock.at += 30_000;
    r.say('retry B', 'HTTP 503');
    expect(io.stderrText().split('\n').slice(2)).toEqual([
      'retry B',
      '  and 5 more retries since the last said (HTTP 429 ×3, ECONNRESET ×2), each in the request log',
      '',
    ]);
    // Said again 30 s after B, with nothing left unsaid in between: the line alone.
    clock.at += 30_000;
    r.say('retry C', undefined);
    expect(io.stderrText().endsWith('\nretry C\n')).toBe(true);
    expect(tally.total).toBe(8);
    expect(causesWords(tally.byCause)).toBe('HTTP 429 ×3, HTTP 503 ×2, ECONNRESET ×2, error');
  });

  it('with --json each line said is one JSON notice coded RETRY_WAIT', () => {
    const io = testIO();
    const r = retryNotices({ io, clock: manualClock(), globals: { json: true } });
    r.countRetries();
    r.say('retry A', 'HTTP 503');
    r.say('retry B', 'HTTP 503');
    const lines = io.stderrText().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      notice: { code: 'RETRY_WAIT', message: 'retry A\n  further retries of this run are counted and said at most every 30 s' },
    });
  });
});
