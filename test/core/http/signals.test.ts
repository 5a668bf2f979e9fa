import { describe, expect, it, vi } from 'vitest';
import { attemptSignal } from '../../../src/core/http/signals.js';

describe('attemptSignal', () => {
  it('many attempts in flight on one long-lived signal: no MaxListeners warning, each aborts with it unless disposed', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const long = new AbortController();
      const links = Array.from({ length: 40 }, () => attemptSignal(long.signal, 60_000));
      links.slice(0, 10).forEach((l) => l.dispose());
      long.abort(new Error('stop'));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
      expect(links.slice(0, 10).every((l) => !l.signal.aborted)).toBe(true);
      expect(links.slice(10).every((l) => l.signal.aborted && (l.signal.reason as Error).message === 'stop' && !l.expired())).toBe(true);
      links.forEach((l) => l.dispose());
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('aborts at its deadline (expired), never after it is disposed; an already aborted signal aborts it at once', () => {
    vi.useFakeTimers();
    try {
      const long = new AbortController();
      const timed = attemptSignal(long.signal, 1_000);
      const done = attemptSignal(long.signal, 1_000);
      const alone = attemptSignal(undefined, 1_000);
      done.dispose();
      vi.advanceTimersByTime(999);
      expect(timed.signal.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(timed.signal.aborted && timed.expired()).toBe(true);
      expect(alone.signal.aborted && alone.expired()).toBe(true);
      expect(done.signal.aborted || done.expired()).toBe(false);
      long.abort('ctrl-c');
      const late = attemptSignal(long.signal, 1_000);
      expect(late.signal.reason).toBe('ctrl-c');
      expect(late.expired()).toBe(false);
      expect(timed.signal.reason).not.toBe('ctrl-c');
    } finally {
      vi.useRealTimers();
    }
  });
});
