/** The bulk run's progress line on a terminal, and other stderr lines written while it shows. */
import { describe, expect, it } from 'vitest';
import { startFollowProgress, startProgress } from '../../src/commands/orders/bulk-progress.js';
import { err, lineDrawn } from '../../src/core/io/io.js';
import { testIO } from '../helpers/io.js';
import { fakeClock } from '../core/http/fake-clock.js';
import { until } from '../helpers/until.js';

const CLEAR = '\r\x1b[2K';

describe('bulk progress', () => {
  it('a notice written while the line shows goes on its own line above it, and the line is drawn again below', async () => {
    const io = testIO({ tty: true });
    const progress = startProgress(io, fakeClock(), 250, 0);
    err(io, 'Waiting 19.6s to stay under the orders rate limit (100/min for this API key)…\n');
    progress.done();
    err(io, 'All 250 rows ordered.\n');
    await new Promise((resolve) => setImmediate(resolve));
    const text = io.stderrText();
    // Never glued to the progress text: the line is cleared first.
    expect(text).not.toMatch(/failedWaiting/);
    const line = 'orders 0/250 · 0.0/s · ETA … · 0 failed';
    expect(text).toBe(
      `${CLEAR}${line}${CLEAR}Waiting 19.6s to stay under the orders rate limit (100/min for this API key)…\n${CLEAR}${line}${CLEAR}All 250 rows ordered.\n`,
    );
    // Once done, stderr is written as it is.
    expect(io.statusLine).toBeUndefined();
  });

  it('counts as a line drawn on the terminal while it shows: no request spinner beside it', () => {
    const io = testIO({ tty: true });
    const progress = startProgress(io, fakeClock(), 3, 0);
    expect(lineDrawn(io.stderr)).toBe(true);
    progress.done();
    expect(lineDrawn(io.stderr)).toBe(false);
    // Not drawn in place: nothing counted.
    startProgress(io, fakeClock(), 3, 0, undefined, { format: 'json' });
    expect(lineDrawn(io.stderr)).toBe(false);
  });

  it('paced: the ETA counts at most the rate the pacer allows, not the first burst', () => {
    const io = testIO({ tty: true });
    const clock = fakeClock();
    // 1,000 rows at 100/min: the first window's 100 go in a second.
    const progress = startProgress(io, clock, 1_000, 0, 100 / 60);
    expect(io.stderrText()).toContain('orders 0/1000 · 0.0/s · ETA 10m · 0 failed');
    clock.advance(1_000);
    const row = (i: number) => ({ type: 'result', row: i, ok: true, order_id: `ord_${i}`, status: 'DELIVERED', at: '' }) as never;
    for (let i = 1; i < 100; i++) progress.update(row(i));
    clock.advance(100); // the line is redrawn at most every 100 ms
    progress.update(row(100));
    // 900 left at 100/min is 9 minutes, not the 10 s the burst's 91/s would promise.
    expect(io.stderrText()).toContain('orders 100/1000 · 90.9/s · ETA 9m · 0 failed');
    progress.done();
  });

  it('not on a terminal: no line, and notices are written as they come', async () => {
    const io = testIO({ tty: false });
    const progress = startProgress(io, fakeClock(), 3, 0);
    expect(io.statusLine).toBeUndefined();
    err(io, 'Waiting 5s…\n');
    progress.done();
    await new Promise((resolve) => setImmediate(resolve));
    expect(io.stderrText()).toBe('Waiting 5s…\n');
  });

  it('a narrow terminal: the line is cut to its width (a wrapped line cannot be cleared, and each redraw left one behind)', () => {
    const io = testIO({ tty: true, columns: 30 });
    const progress = startProgress(io, fakeClock(), 250, 0);
    progress.done();
    const drawn = io.stderrText().split(CLEAR).filter(Boolean);
    expect(drawn).toEqual(['orders 0/250 · 0.0/s · ETA ……']);
    expect(drawn[0]!.length).toBeLessThan(30);
  });

  it('TERM=dumb (no cursor control): no line drawn in place, no escape codes, only ASCII', async () => {
    const io = testIO({ tty: true, env: { TERM: 'dumb' } });
    const progress = startProgress(io, fakeClock(), 3, 0);
    err(io, 'Waiting 5s…\n');
    progress.done();
    await new Promise((resolve) => setImmediate(resolve));
    expect(io.stderrText()).toBe('Waiting 5s...\n');
  });

  it('rows finished within the redraw limit are shown once it ends, though no row follows (a pacing wait after a burst)', async () => {
    const io = testIO({ tty: true });
    const progress = startProgress(io, fakeClock(), 5, 0);
    const row = (i: number) => ({ type: 'result', row: i, ok: true, order_id: `ord_${i}`, status: 'DELIVERED', at: '' }) as never;
    // The fake clock stands still: every update falls within 100 ms of the first line.
    for (let i = 1; i <= 3; i++) progress.update(row(i));
    expect(io.stderrText()).not.toContain('orders 3/5');
    await until(() => io.stderrText().includes('orders 3/5'), 'the held-back redraw');
    progress.done();
  });
  it('while following the orders not final yet: how many are final and for how long, the time redrawn each second; notices go above it', async () => {
    const io = testIO({ tty: true });
    const clock = fakeClock();
    const progress = startFollowProgress(io, clock, 12, { format: 'table' });
    expect(io.stderrText()).toBe(`${CLEAR}following 12 pending orders: 0 final, 12 pending, 0s`);
    expect(lineDrawn(io.stderr)).toBe(true);
    clock.advance(62_000);
    // Nothing settles: the time moves on all the same.
    await until(
      () => io.stderrText().endsWith('following 12 pending orders: 0 final, 12 pending, 1m02s'),
      'the line redrawn a second later',
    );
    for (let i = 0; i < 7; i++) progress.settled();
    clock.advance(100);
    err(io, 'line 4: order ord_4 ended REFUNDED: no voucher issued\n');
    expect(io.stderrText()).toMatch(
      /\r\x1b\[2Kline 4: order ord_4 ended REFUNDED: no voucher issued\n\r\x1b\[2Kfollowing 12 pending orders: 7 final, 5 pending, 1m02s$/,
    );
    clock.advance(3_600_000);
    for (let i = 0; i < 5; i++) progress.settled();
    expect(io.stderrText()).toMatch(/following 12 pending orders: 12 final, 0 pending, 1h01m02s$/);
    progress.done();
    expect(io.stderrText()).toMatch(/\r\x1b\[2K$/);
    expect(io.statusLine).toBeUndefined();
    expect(lineDrawn(io.stderr)).toBe(false);
  });

  it('a CI job given a pseudo-terminal (CI=1): no line redrawn in place, as no spinner is; notices as they come', async () => {
    const io = testIO({ tty: true, env: { CI: 'true' } });
    const progress = startProgress(io, fakeClock(), 3, 0);
    err(io, 'Waiting 5s…\n');
    progress.done();
    await new Promise((resolve) => setImmediate(resolve));
    expect(io.stderrText()).toBe('Waiting 5s…\n');
    const ci = testIO({ tty: true, env: { CI: '1' } });
    const follow = startFollowProgress(ci, fakeClock(), 3, { format: 'table' });
    follow.settled();
    follow.done();
    expect(ci.stderrText()).toBe('');
    expect(ci.statusLine).toBeUndefined();
  });

  it('while following: nothing drawn on a pipe, under TERM=dumb or with JSON output', () => {
    for (const [io, format] of [
      [testIO({ tty: false }), 'table'],
      [testIO({ tty: true, env: { TERM: 'dumb' } }), 'table'],
      [testIO({ tty: true }), 'json'],
    ] as const) {
      const progress = startFollowProgress(io, fakeClock(), 3, { format });
      progress.settled();
      progress.done();
      expect(io.stderrText()).toBe('');
      expect(io.statusLine).toBeUndefined();
    }
  });
});
