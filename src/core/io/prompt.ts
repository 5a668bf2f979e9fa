/**
 * Questions on the terminal: a hidden line for secrets (raw mode, nothing echoed), a
 * plain line, a yes/no. Prompts go to stderr and only ever run when stdin is a TTY;
 * `readStdinSecret` reads a secret piped on stdin instead.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { InterruptedError, UsageError } from '../errors/index.js';
import { drawLine, noPrompt, type IO } from './io.js';

type TTYInput = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const BACKSPACE = '\u007f';
const CTRL_H = '\b';
const ESC = '\u001b';

/** Largest secret accepted on stdin (a key or secret is far smaller). */
const MAX_STDIN_BYTES = 64 * 1024;

/**
 * The states of an escape sequence being swallowed: `esc` after ESC, `csi-start` right
 * after `ESC [` (where a second `[` is the Linux console's F1–F5, `ESC [ [ A`), `csi`
 * inside it, `ss3` after `ESC O` (one more character), `string` inside an OSC/DCS-like
 * string (until BEL or ST), `string-esc` after an ESC inside one.
 */
type EscapeState = 'none' | 'esc' | 'csi-start' | 'csi' | 'ss3' | 'string' | 'string-esc';

const C1_CSI = '\u009b';
const C1_SS3 = '\u008f';
const C1_STRINGS = new Set(['\u0090', '\u0098', '\u009d', '\u009e', '\u009f']); // DCS SOS OSC PM APC
const STRING_INTRODUCERS = new Set([']', 'P', 'X', '^', '_']); // after ESC: OSC DCS SOS PM APC
const BEL = '\u0007';
const C1_ST = '\u009c';

function isC1Introducer(ch: string): boolean {
  return ch === C1_CSI || ch === C1_SS3 || C1_STRINGS.has(ch);
}

/** Advance through an escape sequence by one character; `none` once it has ended (that character included). */
function nextEscapeState(state: EscapeState, ch: string): EscapeState {
  const code = ch.codePointAt(0)!;
  switch (state) {
    case 'none':
      if (ch === ESC) return 'esc';
      if (ch === C1_CSI) return 'csi-start';
      if (ch === C1_SS3) return 'ss3';
      return C1_STRINGS.has(ch) ? 'string' : 'none';
    case 'esc':
      if (ch === '[') return 'csi-start';
      if (ch === 'O') return 'ss3';
      if (STRING_INTRODUCERS.has(ch)) return 'string';
      if (ch === ESC) return 'esc'; // ESC ESC (Alt+arrow on some terminals): still in a sequence
      // ESC + intermediate bytes (0x20–0x2F) continue (e.g. `ESC ( B`); anything else ends it.
      return code >= 0x20 && code <= 0x2f ? 'esc' : 'none';
    case 'csi-start':
    case 'csi':
      if (state === 'csi-start' && ch === '[') return 'ss3';
      // Parameter and intermediate bytes continue; a final byte (0x40–0x7E), or anything
      // else, ends it; an ESC starts a new sequence.
      if (code >= 0x20 && code <= 0x3f) return 'csi';
      return ch === ESC ? 'esc' : 'none';
    case 'ss3':
      return 'none';
    case 'string':
      if (ch === BEL || ch === C1_ST) return 'none';
      return ch === ESC ? 'string-esc' : 'string';
    case 'string-esc':
      return ch === '\\' ? 'none' : 'string';
  }
}

function requireTTY(io: IO): void {
  const why = noPrompt(io);
  if (why) throw new UsageError(`cannot ask: ${why}`, 'pass the value with a flag, on stdin (--…-stdin) or in the environment');
}

/**
 * Read one line from a TTY in raw mode. With `echo` false nothing is shown; backspace and
 * Ctrl-U edit, Ctrl-C throws InterruptedError.
 *
 * Cursor and editing keys are IGNORED, never inserted and never moving a cursor: the line
 * is only ever appended to (or shortened by backspace / Ctrl-U), so what is saved is what
 * was typed, in order. Every escape sequence is swallowed whole, whatever its encoding:
 * - CSI `ESC [` parameters (0x30–0x3F) and intermediates (0x20–0x2F), ended by one final
 *   byte 0x40–0x7E: arrows `ESC [ A`, modified arrows `ESC [ 1 ; 5 C`, Home/End/Delete
 *   `ESC [ H`, `ESC [ 3 ~`, bracketed-paste markers `ESC [ 200 ~`, focus events…
 * - SS3 `ESC O` + one character: application-cursor-mode arrows `ESC O A`, keypad, F1–F4.
 * - other two-character escapes (`ESC x`, Alt+key) and OSC/DCS/APC/PM/SOS strings
 *   (`ESC ]`, `ESC P`, `ESC _`, `ESC ^`, `ESC X`), ended by BEL or `ESC \`.
 * - 8-bit C1 introducers (U+009B CSI, U+008F SS3, U+009D OSC…) are treated the same way.
 * A sequence split across reads is continued on the next read. A control key inside a
 * sequence (Enter, Ctrl-C, backspace) ends it and acts as itself. A lone Escape press
 * swallows the character typed after it (that is what Alt+key sends).
 */
function readLine(io: IO, echo: boolean): Promise<string> {
  const input = io.stdin as TTYInput;
  const raw = typeof input.setRawMode === 'function';
  return new Promise<string>((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let chars: string[] = [];
    /** Where an escape sequence being swallowed stands (`none` outside one). */
    let escape: EscapeState = 'none';
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
        if (escape !== 'none' && ch < ' ' && ch !== ESC && !(ch === BEL && escape === 'string')) {
          // A control key (Enter, Ctrl-C, backspace…) inside a broken sequence ends it and
          // acts as itself: a stray ESC never swallows the Enter or the Ctrl-C after it.
          escape = 'none';
        }
        if (escape !== 'none' || ch === ESC || isC1Introducer(ch)) {
          escape = nextEscapeState(escape, ch);
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === CTRL_D) return finish();
        if (ch === CTRL_C) {
          finish(new InterruptedError('cancelled at the prompt: nothing was done'));
          // As a Ctrl-C the terminal turns into SIGINT: the run ends by it, and a shell loop stops.
          io.keyInterrupt?.();
          return;
        }
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
        // Other control characters (C0, DEL, C1) are never part of a secret.
        if (ch < ' ' || (ch >= '\u007f' && ch <= '\u009f')) continue;
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

/**
 * Write the question and read its answer. The question's line counts as drawn until then: a
 * request's spinner is taken off first, and none is drawn over it.
 */
async function ask(io: IO, question: string, echo: boolean): Promise<string> {
  const asked = drawLine(io.stderr);
  try {
    io.stderr.write(question);
    return await readLine(io, echo);
  } finally {
    asked();
  }
}

/** Ask for a secret on the terminal without echoing it. */
export async function promptSecret(io: IO, label: string): Promise<string> {
  requireTTY(io);
  return ask(io, `${label}: `, false);
}

/** Ask for a line of text; an empty answer gives `defaultValue` (when given). */
export async function promptText(io: IO, label: string, defaultValue?: string): Promise<string> {
  requireTTY(io);
  const answer = (await ask(io, defaultValue ? `${label} (${defaultValue}): ` : `${label}: `, true)).trim();
  return answer === '' ? (defaultValue ?? '') : answer;
}

/** Ask a yes/no question; only "y" or "yes" (any case) is yes. */
export async function confirm(io: IO, question: string): Promise<boolean> {
  requireTTY(io);
  const answer = (await ask(io, `${question} [y/N] `, true)).trim().toLowerCase();
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
      if (size > MAX_STDIN_BYTES)
        throw new UsageError(
          'stdin holds more than 64 KiB: that is not a secret',
          'pipe only the secret, e.g. printf %s "$SECRET" | vouchers …',
        );
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
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new UsageError('nothing was read from stdin', 'pipe the secret in, e.g. printf %s "$SECRET" | vouchers …');
  return text;
}
