import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError, UsageError } from '../../../src/core/errors/index.js';
import { drawLine, lineDrawn } from '../../../src/core/io/io.js';
import { confirm, promptSecret, promptText, readStdinSecret } from '../../../src/core/io/prompt.js';
import { testIO, type TestIO } from '../../helpers/io.js';

/** A terminal stdin: raw-mode switch recorded, keys typed by the test. */
function ttyIO(): { io: TestIO; type: (s: string) => void; rawCalls: boolean[] } {
  const input = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode: (b: boolean) => void };
  const rawCalls: boolean[] = [];
  input.isTTY = true;
  input.setRawMode = (b: boolean) => {
    rawCalls.push(b);
  };
  const io = testIO({ stdinTTY: true });
  io.stdin = input;
  return { io, type: (s) => input.write(s), rawCalls };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('promptSecret', () => {
  it('reads a hidden line in raw mode and restores the terminal', async () => {
    const { io, type, rawCalls } = ttyIO();
    const p = promptSecret(io, 'API secret');
    type('sk_live_');
    type('abc123\r');
    expect(await p).toBe('sk_live_abc123');
    await tick();
    expect(io.stderrText()).toBe('API secret: \n');
    expect(rawCalls).toEqual([true, false]);
  });

  it('handles backspace, Ctrl-U and ignores arrow keys', async () => {
    const { io, type } = ttyIO();
    const p = promptSecret(io, 'Secret');
    type('abx\u007fc'); // backspace removes x
    type('\u001b[D\u001b[A'); // arrow keys do nothing
    type('\u0015zz\b\bsecret'); // Ctrl-U clears, ^H backspaces
    type('\n');
    expect(await p).toBe('secret');
    await tick();
    expect(io.stderrText()).not.toContain('secret');
  });

  it('application-cursor mode: abc, Up, Left saves abc', async () => {
    const { io, type } = ttyIO();
    const p = promptSecret(io, 'Secret');
    type('abc\u001bOA\u001bOD\r');
    expect(await p).toBe('abc');
  });

  it('swallows every cursor and editing key encoding whole, never inserting any of it', async () => {
    const keys = [
      '\u001b[A',
      '\u001b[B',
      '\u001b[C',
      '\u001b[D', // CSI arrows
      '\u001bOA',
      '\u001bOB',
      '\u001bOC',
      '\u001bOD', // SS3 arrows (application-cursor mode)
      '\u001b[1;5C',
      '\u001b[1;2D',
      '\u001b[1;3A', // modified arrows
      '\u001b[H',
      '\u001b[F',
      '\u001bOH',
      '\u001bOF', // Home / End
      '\u001b[1~',
      '\u001b[4~',
      '\u001b[7~',
      '\u001b[8~', // Home / End (rxvt, vt)
      '\u001b[2~',
      '\u001b[3~',
      '\u001b[3;5~',
      '\u001b[5~',
      '\u001b[6~', // Insert Delete PgUp PgDn
      '\u001b[15~',
      '\u001bOP',
      '\u001b[[A', // F5, F1, linux console F1
      '\u001b[200~',
      '\u001b[201~',
      '\u001b[I',
      '\u001b[O', // paste markers, focus events
      '\u001b\u001b[D',
      '\u001bb',
      '\u001b(B', // Alt+Left (ESC ESC), Alt+b, charset
      '\u001b]0;title\u0007',
      '\u001b]52;c;eA==\u001b\\',
      '\u001bP1$r\u001b\\', // OSC / DCS strings
      '\u009bD',
      '\u008fA',
      '\u009d0;x\u009c', // 8-bit C1 forms
    ];
    for (const key of keys) {
      const { io, type } = ttyIO();
      const p = promptSecret(io, 'Secret');
      type('ab');
      type(key);
      type('cd\r');
      expect(await p, JSON.stringify(key)).toBe('abcd');
    }
  });

  it('a sequence split across reads is still swallowed whole', async () => {
    const { io, type } = ttyIO();
    const p = promptSecret(io, 'Secret');
    type('ab\u001b');
    await tick();
    type('[1;');
    await tick();
    type('5Ccd');
    type('\u001bO');
    await tick();
    type('Aef\r');
    expect(await p).toBe('abcdef');
  });

  it('a broken sequence never swallows Enter or Ctrl-C', async () => {
    const a = ttyIO();
    const p = promptSecret(a.io, 'Secret');
    a.type('abc\u001b[1;\r');
    expect(await p).toBe('abc');
    const b = ttyIO();
    const q = promptSecret(b.io, 'Secret');
    b.type('abc\u001b]0;unterminated\u0003');
    await expect(q).rejects.toBeInstanceOf(InterruptedError);
  });

  it('the same keys are ignored by the echoed prompts (nothing echoed, nothing kept)', async () => {
    const { io, type } = ttyIO();
    const p = promptText(io, 'Name');
    type('pr\u001bOD\u001b[3~od\r');
    expect(await p).toBe('prod');
    await tick();
    expect(io.stderrText()).toBe('Name: prod\n');
  });

  it('Ctrl-C throws InterruptedError, and counts as the SIGINT a terminal would have sent', async () => {
    const { io, type, rawCalls } = ttyIO();
    let keyInterrupts = 0;
    io.keyInterrupt = () => keyInterrupts++;
    const p = promptSecret(io, 'Secret');
    type('abc\u0003');
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
    await expect(p).rejects.toThrow('cancelled at the prompt: nothing was done');
    expect(rawCalls).toEqual([true, false]);
    // The run then ends by SIGINT (main.ts), so a shell loop around it stops as well.
    expect(keyInterrupts).toBe(1);
  });

  it('the interrupt signal ends the prompt too', async () => {
    const { io } = ttyIO();
    const p = promptSecret(io, 'Secret');
    io.interrupt();
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
  });

  it('refuses to prompt when stdin is not a terminal', async () => {
    await expect(promptSecret(testIO(), 'Secret')).rejects.toBeInstanceOf(UsageError);
    await expect(confirm(testIO(), 'Sure?')).rejects.toBeInstanceOf(UsageError);
  });

  it('refuses to prompt in a CI job, even on a pseudo-terminal: nobody would answer', async () => {
    for (const CI of ['true', '1']) {
      const { io } = ttyIO();
      io.env.CI = CI;
      await expect(confirm(io, 'Sure?')).rejects.toThrow('cannot ask: this is a CI job (CI is set)');
      await expect(promptSecret(io, 'Secret')).rejects.toBeInstanceOf(UsageError);
      expect(io.stderrText()).toBe('');
    }
  });
});

describe('promptText and confirm', () => {
  it('echoes what is typed and falls back to the default', async () => {
    const { io, type } = ttyIO();
    const p = promptText(io, 'Base URL', 'http://127.0.0.1:4010/api/v1');
    type('\r');
    expect(await p).toBe('http://127.0.0.1:4010/api/v1');
    const q = promptText(io, 'Name');
    type('prod\r');
    expect(await q).toBe('prod');
    await tick();
    expect(io.stderrText()).toContain('Base URL (http://127.0.0.1:4010/api/v1): ');
    expect(io.stderrText()).toContain('Name: prod\n');
  });

  it('confirm is yes only for y or yes', async () => {
    for (const [answer, expected] of [
      ['y', true],
      ['YES', true],
      ['n', false],
      ['', false],
      ['maybe', false],
    ] as const) {
      const { io, type } = ttyIO();
      const p = confirm(io, 'Remove?');
      type(answer + '\r');
      expect(await p, answer).toBe(expected);
    }
  });
});

describe('a question on the terminal', () => {
  it('counts as a line drawn while it waits: a spinner drawn before gives way, none is drawn over it', async () => {
    for (const ask of [
      (io: TestIO) => confirm(io, 'Remove?'),
      (io: TestIO) => promptText(io, 'Name'),
      (io: TestIO) => promptSecret(io, 'Secret'),
    ]) {
      const { io, type } = ttyIO();
      let gaveWay = false;
      const spinner = drawLine(io.stderr, () => {
        gaveWay = true;
        spinner();
      });
      const p = ask(io);
      expect(gaveWay).toBe(true);
      expect(lineDrawn(io.stderr)).toBe(true);
      type('y\r');
      await p;
      expect(lineDrawn(io.stderr)).toBe(false);
    }
  });
});

describe('readStdinSecret', () => {
  it('reads all of stdin without the trailing newline', async () => {
    expect(await readStdinSecret(testIO({ stdin: 'sk_abc\n' }))).toBe('sk_abc');
    expect(await readStdinSecret(testIO({ stdin: 'sk_abc\r\n' }))).toBe('sk_abc');
    expect(await readStdinSecret(testIO({ stdin: 'sk with spaces ' }))).toBe('sk with spaces ');
  });

  it('empty or huge stdin is a usage error', async () => {
    await expect(readStdinSecret(testIO({ stdin: '' }))).rejects.toBeInstanceOf(UsageError);
    await expect(readStdinSecret(testIO({ stdin: '\n' }))).rejects.toBeInstanceOf(UsageError);
    await expect(readStdinSecret(testIO({ stdin: 'x'.repeat(70_000) }))).rejects.toThrow(/64 KiB/);
  });

  it('on a terminal it asks with a hidden prompt instead', async () => {
    const { io, type } = ttyIO();
    const p = readStdinSecret(io, 'Webhook secret');
    type('whsec_1\r');
    expect(await p).toBe('whsec_1');
    await tick();
    expect(io.stderrText()).toBe('Webhook secret: \n');
  });
});
