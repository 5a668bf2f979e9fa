import { afterEach, describe, expect, it, vi } from 'vitest';
import { attemptSignal, attemptsInFlight, type AttemptSignal } from '../../../src/core/http/signals.js';

/** Timers and the monotonic clock (process.hrtime) faked together. */
function fakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'hrtime'] });
}

const heard = (s: AttemptSignal): { count: number } => {
  const h = { count: 0 };
  s.once('abort', () => (h.count += 1));
  return h;
};

afterEach(() => {
  vi.useRealTimers();
});

describe('attemptSignal', () => {
  it('many attempts in flight on one long-lived signal: no MaxListeners warning, each aborts with it unless disposed', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const long = new AbortController();
      const links = Array.from({ length: 40 }, () => attemptSignal(long.signal, 60_000));
      const ears = links.map(heard);
      links.slice(0, 10).forEach((l) => l.dispose());
      long.abort(new Error('stop'));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
      expect(links.slice(0, 10).every((l) => !l.aborted)).toBe(true);
      expect(ears.slice(0, 10).every((e) => e.count === 0)).toBe(true);
      expect(links.slice(10).every((l) => l.aborted && (l.reason as Error).message === 'stop' && !l.expired)).toBe(true);
      expect(ears.slice(10).every((e) => e.count === 1)).toBe(true);
      links.forEach((l) => l.dispose());
      expect(attemptsInFlight()).toBe(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('aborts at its deadline (expired), never after it is disposed; an already aborted signal aborts it at once', () => {
    fakeTime();
    const long = new AbortController();
    const timed = attemptSignal(long.signal, 1_000);
    const done = attemptSignal(long.signal, 1_000);
    const alone = attemptSignal(undefined, 1_000);
    const ear = heard(timed);
    done.dispose();
    vi.advanceTimersByTime(999);
    expect(timed.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(timed.aborted && timed.expired && ear.count === 1).toBe(true);
    expect(alone.aborted && alone.expired).toBe(true);
    expect(done.aborted || done.expired).toBe(false);
    long.abort('ctrl-c');
    const late = attemptSignal(long.signal, 1_000);
    expect(late.aborted && late.reason).toBe('ctrl-c');
    expect(late.expired).toBe(false);
    expect(timed.reason).not.toBe('ctrl-c');
    expect(attemptsInFlight()).toBe(0);
  });

  it('each attempt expires at its own deadline, whatever ended before it and in whatever order they were made', () => {
    fakeTime();
    const a = attemptSignal(undefined, 500);
    vi.advanceTimersByTime(100);
    const b = attemptSignal(undefined, 500); // due at 600
    const c = attemptSignal(undefined, 200); // due at 300: earlier than both, made last
    const d = attemptSignal(undefined, 1_000); // due at 1,100
    a.dispose(); // the timer was armed for a's deadline
    vi.advanceTimersByTime(199);
    expect([a, b, c, d].map((s) => s.aborted)).toEqual([false, false, false, false]);
    vi.advanceTimersByTime(1); // 300
    expect([a, b, c, d].map((s) => s.expired)).toEqual([false, false, true, false]);
    vi.advanceTimersByTime(299); // 599
    expect(b.aborted).toBe(false);
    vi.advanceTimersByTime(1); // 600
    expect([b.expired, d.expired]).toEqual([true, false]);
    vi.advanceTimersByTime(499); // 1,099
    expect(d.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.expired).toBe(true);
    expect(attemptsInFlight()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps no timer once nothing is in flight, so it never holds the process', () => {
    fakeTime();
    const a = attemptSignal(undefined, 30_000);
    const b = attemptSignal(undefined, 30_000);
    expect(vi.getTimerCount()).toBe(1);
    a.dispose();
    expect(vi.getTimerCount()).toBe(1);
    b.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a deadline past what a Node timer can hold (about 24.8 days) does not fire early', () => {
    fakeTime();
    const far = attemptSignal(undefined, 2 ** 31 + 5_000);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(far.aborted).toBe(false);
    vi.advanceTimersByTime(5_000);
    expect(far.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(far.expired).toBe(true);
  });

  it('is the EventEmitter form of a signal: once, on, removeListener and the abort event, each listener once', async () => {
    const s = attemptSignal(undefined, 20);
    const f = vi.fn();
    s.once('abort', f);
    s.removeListener('abort', f);
    const g = vi.fn();
    s.on('abort', g);
    await new Promise<void>((resolve) => s.once('abort', resolve));
    expect(s.expired).toBe(true);
    expect(f).not.toHaveBeenCalled();
    expect(g).toHaveBeenCalledTimes(1);
  });
});
