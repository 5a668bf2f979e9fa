/**
 * ora is loaded only when a command's spinner shows, after its delay: a command whose work
 * ends sooner (most, against an API nearby) never pays for loading it.
 */
import { describe, expect, it, vi } from 'vitest';
import { lineDrawn } from '../../../src/core/io/io.js';
import { SHOW_AFTER_MS } from '../../../src/core/output/show-after.js';
import { startSpinner } from '../../../src/core/output/spinner.js';
import { testIO } from '../../helpers/io.js';

const loads = vi.hoisted(() => ({ ora: 0 }));
vi.mock('ora', async (importOriginal) => {
  loads.ora++;
  return importOriginal();
});

describe('a command spinner on a terminal', () => {
  it('loads ora only once it shows, after its delay; stopped before, never', async () => {
    const timers: { ms: number; fn: () => Promise<void> | void }[] = [];
    const after = (ms: number, fn: () => Promise<void> | void) => {
      const timer = { ms, fn };
      timers.push(timer);
      return () => timers.splice(timers.indexOf(timer), 1);
    };
    const io = testIO({ tty: true });
    const quick = await startSpinner(io, 'Fetching orders…', { after, color: false });
    quick.text('Fetched 1 order (1 page)…');
    quick.succeed('fetched');
    expect(loads.ora).toBe(0);
    expect(io.stderrText()).toBe('✔ fetched\n');

    const slow = await startSpinner(io, 'Fetching orders…', { after, color: false });
    expect(timers.map((t) => t.ms)).toEqual([SHOW_AFTER_MS]);
    expect(loads.ora).toBe(0);
    await timers.shift()!.fn();
    expect(loads.ora).toBe(1);
    expect(lineDrawn(io.stderr)).toBe(true);
    expect(io.stderrText()).toContain('Fetching orders…');
    slow.succeed('fetched 120 orders');
    expect(lineDrawn(io.stderr)).toBe(false);
    expect(io.stderrText()).toContain('fetched 120 orders');
  });

  it('stopped while ora loads: draws nothing', async () => {
    let fire: (() => Promise<void> | void) | undefined;
    const io = testIO({ tty: true });
    const s = await startSpinner(io, 'Checking…', { after: (_ms, fn) => ((fire = fn), () => undefined), color: false });
    const showing = fire!();
    s.stop();
    await showing;
    expect(lineDrawn(io.stderr)).toBe(false);
    expect(io.stderrText()).toBe('');
  });
});
