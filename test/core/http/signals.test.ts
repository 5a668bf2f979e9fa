import { describe, expect, it } from 'vitest';
import { linkSignals } from '../../../src/core/http/signals.js';

describe('linkSignals', () => {
  it('many attempts in flight on one long-lived signal: no MaxListeners warning, each aborts with it unless disposed', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const long = new AbortController();
      const links = Array.from({ length: 40 }, () => linkSignals(long.signal, new AbortController().signal));
      links.slice(0, 10).forEach((l) => l.dispose());
      long.abort(new Error('stop'));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
      expect(links.slice(0, 10).every((l) => !l.signal.aborted)).toBe(true);
      expect(links.slice(10).every((l) => l.signal.aborted && (l.signal.reason as Error).message === 'stop')).toBe(true);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('aborts with the short signal, and an already aborted source aborts at once', () => {
    const long = new AbortController();
    const short = new AbortController();
    const l = linkSignals(long.signal, short.signal);
    short.abort('deadline');
    expect(l.signal.reason).toBe('deadline');
    long.abort('ctrl-c');
    expect(linkSignals(long.signal, new AbortController().signal).signal.reason).toBe('ctrl-c');
  });
});
