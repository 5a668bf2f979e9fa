/** Reading what the CLI prints, for tests: box tables and the commands it suggests. */
import { expect } from 'vitest';

export const ANSI = /\u001b\[[0-9;]*m/g;

/** Split a POSIX shell command line made of plain words and single-quoted strings. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${line}`);
      current = (current ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '\\') {
      current = (current ?? '') + line[++i];
    } else if (ch === ' ') {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else {
      current = (current ?? '') + ch;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** The next-page hint on stderr: its `More …:` line and the command on the line after it. */
export function hintLine(stderr: string): string {
  const lines = stderr.split('\n');
  const at = lines.findIndex((l, i) => l.startsWith('More ') && (lines[i + 1] ?? '').includes('--cursor '));
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  return `${lines[at]}\n${lines[at + 1] ?? ''}`;
}

/** The MORE_PAGES notice a list prints on stderr with JSON output, when there is one. */
export function pageNotice(stderr: string): { code: string; message: string; next_cursor: string; command: string } | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{"notice"')) continue;
    const notice = (JSON.parse(line) as { notice: { code: string; message: string; next_cursor: string; command: string } }).notice;
    if (notice.code === 'MORE_PAGES') return notice;
  }
  return undefined;
}

/** The command of a "More …: vouchers … --cursor X" hint (or of a MORE_PAGES notice), as argv without the program name. */
export function hintArgv(stderr: string): string[] {
  const notice = pageNotice(stderr);
  const line = notice ? notice.command : hintLine(stderr);
  const command = /(vouchers .*--cursor \S+)/.exec(line)?.[1];
  expect(command, line).toBeDefined();
  const words = shellWords(command!);
  expect(words[0]).toBe('vouchers');
  return words.slice(1);
}

/** Data rows of a box table: the cells of each line between the header rule and the bottom. */
export function tableRows(text: string): string[][] {
  const lines = text.replace(ANSI, '').trimEnd().split('\n');
  const rule = lines.findIndex((l) => l.startsWith('├'));
  return lines.slice(rule + 1, -1).map((l) =>
    l
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

/** The header cells of a box table. */
export function tableHeader(text: string): string[] {
  const line = text
    .replace(ANSI, '')
    .split('\n')
    .find((l) => l.startsWith('│'))!;
  return line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());
}

/**
 * Notes on stderr as written piped: on a terminal each is wrapped to its width, its lines
 * after the first indented under it or starting other than a line of its own does (a
 * capital, a colour, a JSON line); joined here again.
 */
export function unwrapped(stderr: string): string {
  return stderr.replace(/([^\n])\n +/g, '$1 ').replace(/([^\n])\n(?=[^A-Z\s\u001b{])/g, '$1 ');
}
