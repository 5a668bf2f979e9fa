/**
 * Body arguments of `api --data` and `sign --body`: inline JSON, `@file`, or `-` for stdin.
 * Invalid JSON is a UsageError naming the line and column of the first problem.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors/index.js';
import type { IO } from '../../core/io/io.js';

const READ_FAILURES: Record<string, string> = {
  ENOENT: ': no such file',
  EISDIR: ': it is a directory',
  EACCES: ': permission denied',
  EPERM: ': permission denied',
};

/** Where a body argument's text came from, for an error about it: a file, stdin, or the argument itself (undefined). */
export function bodyOrigin(io: IO, value: string): string | undefined {
  if (value === '-') return 'stdin';
  if (value.startsWith('@')) return `the file ${resolve(io.cwd, value.slice(1))}`;
  return undefined;
}

/** Read a body argument's text: `-` is stdin, `@path` a file (relative to the working directory), anything else literal. */
export async function readBodyArg(io: IO, value: string, flag: string): Promise<string> {
  if (value === '-') {
    if (io.stdinIsTTY)
      throw new UsageError(
        `${flag} - reads the body from stdin, but stdin is a terminal`,
        `pipe it in, e.g. echo '{"a":1}' | vouchers … ${flag} -`,
      );
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  if (value.startsWith('@')) {
    const path = resolve(io.cwd, value.slice(1));
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(
        `${flag} ${value}: cannot read ${path} (${code ?? 'error'})${READ_FAILURES[code ?? ''] ?? ''}`,
        `give an existing file after @ (relative to ${io.cwd}), inline JSON, or - for stdin`,
      );
    }
  }
  return value;
}

/** Offset of the first JSON syntax error in `s`, or -1 when it is valid. */
export function jsonErrorOffset(s: string): number {
  let i = 0;
  const ws = () => {
    while (i < s.length && ' \t\n\r'.includes(s[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (s.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    i++;
    while (i < s.length) {
      const c = s[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail();
      if (c === '\\') {
        i++;
        if (s[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) fail();
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(s[i] ?? 'x')) fail();
      }
      i++;
    }
    fail();
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(s.slice(i));
    if (!m) fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (s[i] !== '"') fail();
        string();
        ws();
        if (s[i] !== ':') fail();
        i++;
        value();
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') {
          i++;
          return;
        }
        fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          return;
        }
        fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail();
  };
  try {
    value();
    ws();
    return i < s.length ? i : -1;
  } catch (at) {
    return typeof at === 'number' ? at : 0;
  }
}

/** Line and column (1-based) of an offset. */
function lineCol(s: string, offset: number): { line: number; column: number } {
  const before = s.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/**
 * Check that `text` is JSON; throws a UsageError naming where it breaks, and `origin`
 * (bodyOrigin: a file, stdin) when it did not come from the argument itself.
 */
export function assertJson(text: string, flag: string, origin?: string): void {
  const what = origin === undefined ? flag : `${flag}: ${origin}`;
  const fix =
    origin === undefined ? '' : origin === 'stdin' ? 'fix what is piped in: ' : 'fix the file (or give the body inline, or - for stdin): ';
  if (text.trim() === '') throw new UsageError(`${what} is empty`, 'give a JSON body, e.g. \'{"items":[\u2026]}\'');
  const at = jsonErrorOffset(text);
  if (at < 0) return;
  if (at === 0 && text.startsWith('\ufeff'))
    throw new UsageError(`${what} is not valid JSON: it starts with a byte order mark (BOM)`, `${fix}save it as UTF-8 without a BOM`);
  const { line, column } = lineCol(text, at);
  const where = `at line ${line}, column ${column} (position ${at})`;
  if (at >= text.length)
    throw new UsageError(
      `${what} is not valid JSON: it ends ${where} before the JSON is complete`,
      `${fix}close every string, bracket and brace, and give a value after each colon and comma`,
    );
  throw new UsageError(
    `${what} is not valid JSON: unexpected ${JSON.stringify(text[at])} ${where}`,
    `${fix}check quotes, commas and brackets; keys need double quotes`,
  );
}
