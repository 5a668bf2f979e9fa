import { describe, expect, it } from 'vitest';
import { lineDrawn } from '../../../src/core/io/io.js';
import { SHOW_AFTER_MS } from '../../../src/core/output/show-after.js';
import { startSpinner } from '../../../src/core/output/spinner.js';
import { testIO } from '../../helpers/io.js';

/** SGR colour sequences only (ora also hides and shows the cursor, which is not colour). */
const SGR = /\u001b\[[0-9;]*m/;

describe('startSpinner', () => {
  it('on a terminal: cuts the live line to the terminal width (never wrapped mid-word); the outcome line stays whole', async () => {
    const io = testIO({ tty: true });
    Object.assign(io.stderr, { columns: 40 });
    const long = 'Waiting for ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE to reach a final status (Ctrl-C stops waiting)';
    const s = await startSpinner(io, long, { showAfterMs: 0, color: false });
    s.text(`${long}, 12 s`);
    const drawn = io.stderrText();

    const plain = drawn.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const lines = plain.split(/[\r\n]/).filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.length, l).toBeLessThan(40);
    expect(plain).toContain('Waiting for ord_01JDQ5N7ZS3QK6V9W2X4…');
    s.succeed(`${long}: DELIVERED`);
    expect(io.stderrText()).toContain(`${long}: DELIVERED`);
  });

  it('writes nothing when stderr is not a terminal, but still prints info lines', async () => {
    const io = testIO();
    const s = await startSpinner(io, 'Working…');
    s.text('still working');
    s.info('a line for the user');
    s.succeed('done');
    expect(io.stderrText()).toBe('a line for the user\n');
    expect(io.stdoutText()).toBe('');
  });

  it('on a terminal: animates on stderr only, ✔ and ✖ in colour', async () => {
    const io = testIO({ tty: true });
    const s = await startSpinner(io, 'Working…');
    s.succeed('done');
    const f = await startSpinner(io, 'Again…');
    f.fail('failed');
    expect(io.stdoutText()).toBe('');
    expect(io.stderrText()).toContain('done');
    expect(io.stderrText()).toMatch(/\u001b\[32m✔/);
    expect(io.stderrText()).toMatch(/\u001b\[31m✖/);
  });

  it('on a terminal: draws nothing for work done within the delay, only the outcome; once the delay has passed, the frame', async () => {
    const timers: { ms: number; fn: () => void }[] = [];
    const after = (ms: number, fn: () => Promise<void> | void) => {
      const timer = { ms, fn };
      timers.push(timer);
      return () => timers.splice(timers.indexOf(timer), 1);
    };
    const io = testIO({ tty: true });
    const quick = await startSpinner(io, 'Fetching orders…', { after });
    expect(timers.map((t) => t.ms)).toEqual([SHOW_AFTER_MS]);
    quick.text('Fetched 1 order (1 page)…');
    quick.stop();
    expect(timers).toEqual([]);
    expect(io.stderrText()).toBe('');
    expect(lineDrawn(io.stderr)).toBe(false);

    const done = await startSpinner(io, 'Checking…', { after, color: false });
    done.succeed('checked');
    expect(io.stderrText()).toBe('✔ checked\n');

    const slow = await startSpinner(io, 'Fetching orders…', { after });
    expect(io.stderrText()).toBe('✔ checked\n');
    await timers.shift()!.fn();
    expect(lineDrawn(io.stderr)).toBe(true);
    expect(io.stderrText()).toContain('Fetching orders…');
    slow.stop();
    expect(lineDrawn(io.stderr)).toBe(false);
  });

  it.each([
    [{ TERM: 'dumb' }, 'Waiting for ord_1...\na line for the user\n+ delivered\nAgain...\nx failed\n'],
    [{ CI: 'true' }, 'Waiting for ord_1…\na line for the user\n✔ delivered\nAgain…\n✖ failed\n'],
    [{ CI: '1' }, 'Waiting for ord_1…\na line for the user\n✔ delivered\nAgain…\n✖ failed\n'],
  ])(
    '%o (no cursor control, or a CI log): the message once and each outcome as plain lines, no escape codes (in ASCII without cursor control)',
    async (env, lines) => {
      const io = testIO({ tty: true, env });
      const s = await startSpinner(io, 'Waiting for ord_1…');
      s.text('still waiting');
      s.info('a line for the user');
      s.succeed('delivered');
      const f = await startSpinner(io, 'Again…');
      f.fail('failed');
      expect(io.stderrText()).toBe(lines);
    },
  );

  it('never colours with NO_COLOR or --no-color', async () => {
    for (const [env, color] of [
      [{ NO_COLOR: '1' }, undefined],
      [{}, false],
    ] as const) {
      const io = testIO({ tty: true, env });
      const s = await startSpinner(io, 'Working…', { color });
      s.text('more');
      s.succeed('done');
      const f = await startSpinner(io, 'Again…', { color });
      f.fail('failed');
      expect(io.stderrText()).toContain('✔ done');
      expect(io.stderrText()).toContain('✖ failed');
      expect(io.stderrText()).not.toMatch(SGR);
    }
  });
});
