import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { drawLine, lineDrawn } from '../../../src/core/io/io.js';
import { requestSpinner } from '../../../src/core/output/request-spinner.js';
import { SHOW_AFTER_MS } from '../../../src/core/output/show-after.js';
import { testIO, type TestIOOptions } from '../../helpers/io.js';
import { until } from '../../helpers/until.js';

/** Timers fired by the test, never by time: the delay before the spinner, and its countdown. */
function manualTimers() {
  const pending: { ms: number; fn: () => Promise<void> | void }[] = [];
  return {
    pending,
    after: (ms: number, fn: () => Promise<void> | void) => {
      const timer = { ms, fn };
      pending.push(timer);
      return () => {
        const i = pending.indexOf(timer);
        if (i >= 0) pending.splice(i, 1);
      };
    },
    /** Fire the oldest timer; resolves once what it started (loading ora, drawing) is done and written. */
    async fire() {
      await pending.shift()!.fn();
      await new Promise((r) => setImmediate(r));
    },
  };
}

function setup(io: TestIOOptions = { tty: true }, quiet = false) {
  const t = manualTimers();
  let now = 1_000_000;
  const testio = testIO(io);
  const spinner = requestSpinner(testio, { quiet, now: () => now, after: t.after });
  return { io: testio, spinner, timers: t, advance: (ms: number) => (now += ms) };
}

describe('requestSpinner', () => {
  it('draws nothing for an answer that comes before the delay: the timer is cancelled, nothing is written', () => {
    const { io, spinner, timers } = setup();
    const settled = spinner.begin('GET /orders/ord_1');
    expect(timers.pending.map((p) => p.ms)).toEqual([SHOW_AFTER_MS]);
    settled();
    expect(timers.pending).toEqual([]);
    expect(io.stderrText()).toBe('');
  });

  it('shows once the delay has passed, and is taken off when the request settles', async () => {
    const { io, spinner, timers } = setup();
    const settled = spinner.begin('GET /orders/ord_1');
    await timers.fire();
    expect(io.stderrText()).toContain('Waiting for GET /orders/ord_1…');
    expect(lineDrawn(io.stderr)).toBe(true);
    settled();
    expect(lineDrawn(io.stderr)).toBe(false);
    expect(io.stdoutText()).toBe('');
  });

  it('says how long a retry or a rate-limit wait has left, counting down', async () => {
    const { io, spinner, timers, advance } = setup();
    const settled = spinner.begin('GET /orders/ord_1');
    spinner.waiting('retry', 8000);
    await timers.fire();
    expect(io.stderrText()).toContain('GET /orders/ord_1: retrying in 8s…');
    // The countdown's tick, a second later.
    expect(timers.pending.map((p) => p.ms)).toEqual([1000]);
    advance(1000);
    await timers.fire();
    await until(() => io.stderrText().includes('retrying in 7s…'), 'the countdown to be drawn');
    spinner.waiting('rate_limit', 42_000);
    await until(() => io.stderrText().includes('GET /orders/ord_1: waiting 42s for the rate limit…'), 'the rate-limit wait to be drawn');
    settled();
    expect(timers.pending).toEqual([]);
  });

  it('a request that settles while ora loads draws nothing', async () => {
    const { io, spinner, timers } = setup();
    const settled = spinner.begin('GET /wallets');
    const shown = timers.pending.shift()!.fn();
    settled();
    await shown;
    await new Promise((r) => setImmediate(r));
    expect(io.stderrText()).toBe('');
    expect(lineDrawn(io.stderr)).toBe(false);
  });

  it('several in flight: one spinner; taken off when one settles, shown again if the others stay slow', async () => {
    const { io, spinner, timers } = setup();
    const first = spinner.begin('GET /wallets');
    const second = spinner.begin('GET /products');
    expect(timers.pending).toHaveLength(1);
    await timers.fire();
    expect(io.stderrText()).toContain('Waiting for 2 requests…');
    first();
    expect(lineDrawn(io.stderr)).toBe(false);
    expect(timers.pending.map((p) => p.ms)).toEqual([SHOW_AFTER_MS]);
    second();
    expect(timers.pending).toEqual([]);
  });

  it('never over another line drawn on the terminal (a prompt, a command’s own spinner), and gives way to one drawn after it', async () => {
    const { io, spinner, timers } = setup();
    const prompt = drawLine(io.stderr);
    const settled = spinner.begin('GET /wallets');
    await timers.fire();
    expect(io.stderrText()).toBe('');
    prompt();
    settled();

    const again = spinner.begin('GET /wallets');
    await timers.fire();
    expect(io.stderrText()).toContain('Waiting for GET /wallets…');
    const asked = drawLine(io.stderr);
    // Only the prompt's line is left drawn.
    asked();
    expect(lineDrawn(io.stderr)).toBe(false);
    again();
  });

  it.each<[string, TestIOOptions, boolean]>([
    ['stderr not a terminal', { tty: false }, false],
    ['--json', { tty: true }, true],
    ['TERM=dumb', { tty: true, env: { TERM: 'dumb' } }, false],
    ['a CI log', { tty: true, env: { CI: 'true' } }, false],
  ])('%s: no timer, nothing drawn', (_what, options, quiet) => {
    const { io, spinner, timers } = setup(options, quiet);
    spinner.begin('GET /wallets')();
    expect(timers.pending).toEqual([]);
    expect(io.stderrText()).toBe('');
  });

  it('its default timer does not keep the process alive', () => {
    const unref = vi.fn();
    const spy = vi.spyOn(globalThis, 'setTimeout').mockReturnValue({ unref } as unknown as ReturnType<typeof setTimeout>);
    try {
      const spinner = requestSpinner(testIO({ tty: true }), { now: () => 0 });
      spinner.begin('GET /wallets');
      expect(spy).toHaveBeenCalledWith(expect.any(Function), SHOW_AFTER_MS);
      expect(unref).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('loads ora only once the delay has passed: no static import of the spinner or of ora', () => {
    const source = readFileSync(new URL('../../../src/core/output/request-spinner.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^import\s+(?!type\b)[^;]*from\s+'(ora|\.\/spinner\.js)'/m);
  });
});
