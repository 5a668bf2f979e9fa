/**
 * Questions on the terminal: a hidden line for secrets (raw mode, nothing echoed), a
 * plain line, a yes/no. Prompts go to stderr and only ever run when stdin is a TTY;
 * `readStdinSecret` reads a secret piped on stdin instead.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { InterruptedError, UsageError } from '../errors/index.js';
import type { IO } from './io.js';

type TTYInput = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const BACKSPACE = '\u007f';
const CTRL_H = '\b';
const ESC = '\u001b';

/** Largest secret accepted on stdin (a key or secret is far smaller). */
const MAX_STDIN_BYTES = 64 * 1024;

function requireTTY(io: IO): void {
  if (!io.stdinIsTTY) {
    throw new UsageError('cannot ask: stdin is not a terminal', 'pass the value with a flag, on stdin (--…-stdin) or in the environment');
  }
}

/**
 * Read one line from a TTY in raw mode. With `echo` false nothing is shown; backspace and
 * Ctrl-U edit, escape sequences (arrow keys) are ignored, Ctrl-C throws InterruptedError.
 */
function readLine(io: IO, echo: boolean): Promise<string> {
  const input = io.stdin as TTYInput;
  const raw = typeof input.setRawMode === 'function';
  return new Promise<string>((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let chars: string[] = [];
    let inEscape = false;
    let settled = false;

    const cleanup = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      io.signal.removeEventListener('abort', onAbort);
      if (raw) input.setRawMode!(false);
      input.pause();
    };
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      io.stderr.write('\n');
      if (error) reject(error);
      else resolve(chars.join(''));
    };
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (const ch of text) {
        if (settled) return;
        if (inEscape) {
          // CSI sequences end with a letter or "~"; a lone ESC followed by "[" or "O" continues.
          if (/[A-Za-z~]/.test(ch)) inEscape = false;
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === CTRL_D) return finish();
        if (ch === CTRL_C) return finish(new InterruptedError('cancelled at the prompt'));
        if (ch === BACKSPACE || ch === CTRL_H) {
          if (chars.length > 0) {
            chars.pop();
            if (echo) io.stderr.write('\b \b');
          }
          continue;
        }
        if (ch === CTRL_U) {
          if (echo) io.stderr.write('\b \b'.repeat(chars.length));
          chars = [];
          continue;
        }
        if (ch === ESC) {
          inEscape = true;
          continue;
        }
        if (ch < ' ') continue;
        chars.push(ch);
        if (echo) io.stderr.write(ch);
      }
    };
    const onEnd = () => finish();
    const onError = (e: Error) => finish(e);
    const onAbort = () => finish(new InterruptedError());

    if (io.signal.aborted) return onAbort();
    io.signal.addEventListener('abort', onAbort, { once: true });
    if (raw) input.setRawMode!(true);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
    input.resume();
  });
}

/** Ask for a secret on the terminal without echoing it. */
export async function promptSecret(io: IO, label: string): Promise<string> {
  requireTTY(io);
  io.stderr.write(`${label}: `);
  return readLine(io, false);
}

/** Ask for a line of text; an empty answer gives `defaultValue` (when given). */
export async function promptText(io: IO, label: string, defaultValue?: string): Promise<string> {
  requireTTY(io);
  io.stderr.write(defaultValue ? `${label} (${defaultValue}): ` : `${label}: `);
  const answer = (await readLine(io, true)).trim();
  return answer === '' ? (defaultValue ?? '') : answer;
}

/** Ask a yes/no question; only "y" or "yes" (any case) is yes. */
export async function confirm(io: IO, question: string): Promise<boolean> {
  requireTTY(io);
  io.stderr.write(`${question} [y/N] `);
  const answer = (await readLine(io, true)).trim().toLowerCase();
  return answer === 'y' || answer === 'yes';
}

/**
 * A secret piped on stdin: all of it, without the trailing newline. On a terminal this
 * asks with a hidden prompt instead (typing it would echo it).
 */
export async function readStdinSecret(io: IO, label = 'Secret'): Promise<string> {
  if (io.stdinIsTTY) return promptSecret(io, label);
  const chunks: Buffer[] = [];
  let size = 0;
  const reading = (async () => {
    for await (const chunk of io.stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
      size += buf.length;
      if (size > MAX_STDIN_BYTES) throw new UsageError('stdin holds more than 64 KiB: that is not a secret', 'pipe only the secret, e.g. printf %s "$SECRET" | vouchers …');
      chunks.push(buf);
    }
  })();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InterruptedError());
    if (io.signal.aborted) onAbort();
    else io.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([reading, aborted]);
  } finally {
    io.signal.removeEventListener('abort', onAbort!);
    aborted.catch(() => undefined);
    reading.catch(() => undefined);
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (text === '') throw new UsageError('nothing was read from stdin', 'pipe the secret in, e.g. printf %s "$SECRET" | vouchers …');
  return text;
}
