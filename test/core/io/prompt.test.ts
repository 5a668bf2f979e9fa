import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError, UsageError } from '../../../src/core/errors/index.js';
import { confirm, promptSecret, promptText, readStdinSecret } from '../../../src/core/io/prompt.js';
import { testIO, type TestIO } from '../../helpers/io.js';

/** A terminal stdin: raw-mode switch recorded, keys typed by the test. */
function ttyIO(): { io: TestIO; type: (s: string) => void; rawCalls: boolean[] } {
  const input = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode: (b: boolean) => void };
  const rawCalls: boolean[] = [];
  input.isTTY = true;
  input.setRawMode = (b: boolean) => { rawCalls.push(b); };
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
    type('abx\u007fc');          // backspace removes x
    type('\u001b[D\u001b[A');   // arrow keys do nothing
    type('\u0015zz\b\bsecret');  // Ctrl-U clears, ^H backspaces
    type('\n');
    expect(await p).toBe('secret');
    await tick();
    expect(io.stderrText()).not.toContain('secret');
  });

  it('Ctrl-C throws InterruptedError', async () => {
    const { io, type, rawCalls } = ttyIO();
    const p = promptSecret(io, 'Secret');
    type('abc\u0003');
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
    expect(rawCalls).toEqual([true, false]);
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
    for (const [answer, expected] of [['y', true], ['YES', true], ['n', false], ['', false], ['maybe', false]] as const) {
      const { io, type } = ttyIO();
      const p = confirm(io, 'Remove?');
      type(answer + '\r');
      expect(await p, answer).toBe(expected);
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
