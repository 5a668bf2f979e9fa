/**
 * Help laid out for the width it is printed at. commander wraps the option and command
 * lists itself; the text a command adds after them (notes, examples, environment) is
 * written at a fixed width, so on a narrower terminal the terminal broke its lines in the
 * middle of words. Here a paragraph with a line too wide is wrapped again, at spaces.
 *
 * A paragraph is a run of lines of prose with the same indentation. Lines that are not
 * prose keep their layout unless too wide: an example command (`$ vouchers …`) is broken
 * between its words with a ` \` at the end of each line but the last (the next indented
 * under it), so it can still be copied whole, an option kept with its value and a quoted
 * argument never split; the words beside it are wrapped in their own column, or under it
 * when the column would be too narrow; a comment (`# …`) wraps into lines that each start
 * with `#`. A line of aligned columns (three spaces or more between two words) is kept. A
 * heading (`Examples:`) is a paragraph of its own.
 * Pure; plain length as the width (help text has no wide characters).
 */

import { commandLines, shellWords } from '../io/shell-command.js';

/** Narrowest column the words beside an example are wrapped in. */
const MIN_COLUMN = 20;

const SGR = /\u001b\[[0-9;]*m/g;

function visibleLength(line: string): number {
  return line.replace(SGR, '').length;
}

function indentOf(line: string): number {
  return /^ */.exec(line)![0].length;
}

function isProse(line: string): boolean {
  const text = line.trim();
  if (text === '' || text.startsWith('# ')) return false;
  if (text.startsWith('$ ') || / \$ /.test(text)) return false;
  return !/\S {3,}\S/.test(text);
}

function isHeading(line: string): boolean {
  return /^[A-Z][A-Za-z ]*:$/.test(line.trim());
}

/** Words wrapped to `width` after `pad`; a comment (`# …`) wraps into lines that each start with `# `. */
function wrapBeside(words: string, pad: string, width: number, asComment: boolean): string[] {
  const comment = asComment || words.startsWith('#');
  const text = comment ? words.replace(/^#+ */, '') : words;
  const mark = comment ? '# ' : '';
  return wrapWords(text.split(/ +/), Math.max(1, width - pad.length - mark.length)).map((l) => pad + mark + l);
}

/**
 * An example command, with any lines it goes on (`\`) and any words beside it (`$ vouchers
 * demo   walk through…`, `$ … # a comment`), too wide: the command broken into lines (see
 * commandLines); the words beside wrapped in their column, or on the lines under the
 * command when that column would be narrower than MIN_COLUMN or the command was broken (as
 * a comment then, the lines above it ending where the command does). A comment line wraps
 * into comment lines. Any other line is kept as it is.
 */
function fitExample(lines: string[], width: number): string[] {
  if (lines.every((line) => visibleLength(line) <= width)) return lines;
  const first = lines[0]!;
  const indent = ' '.repeat(indentOf(first));
  if (first.trim().startsWith('# ')) return wrapBeside(first.trim(), indent, width, true);
  if (!first.trim().startsWith('$ ')) return lines;
  const whole = lines.map((line, i) => (i === 0 ? line : line.trim()).replace(/ \\$/, '')).join(' ');
  const parts = /^(\s*\$ .*?\S)( {3,})(\S.*)$/.exec(whole);
  const [command, gap, beside] = parts ? [parts[1]!, parts[2]!, parts[3]] : [whole.trimEnd(), '', undefined];
  // A word starting with # (outside quotes) starts a comment: words beside the command.
  const words = shellWords(command.trim().slice(2));
  const hash = words.findIndex((w) => w.startsWith('#'));
  const comment = hash < 0 ? undefined : words.splice(hash).join(' ');
  const besideText = beside ?? comment;
  const commandText = comment === undefined ? command : `${indent}$ ${words.join(' ')}`;
  const under = `${indent}    `;
  const broken = visibleLength(commandText) > width;
  const out = broken ? commandLines(`$ ${words.join(' ')}`, indent.length, width, visibleLength, 4) : [commandText];
  if (besideText === undefined) return out;
  if (!broken) {
    const space = gap || '  ';
    const column = visibleLength(commandText) + space.length;
    if (column + visibleLength(besideText) <= width) return [commandText + space + besideText];
    if (width - column >= MIN_COLUMN) {
      const wrapped = wrapBeside(besideText, '', width - column, false);
      return [commandText + space + wrapped[0]!, ...wrapped.slice(1).map((l) => ' '.repeat(column) + l)];
    }
  }
  return [...out, ...wrapBeside(besideText, under, width, broken)];
}

/** Words joined into lines of at most `width` (a longer word alone on its line). */
function wrapWords(words: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && visibleLength(line) + 1 + visibleLength(word) > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** `text` with each paragraph that has a line wider than `width` wrapped again to `width`. */
export function fitHelpText(text: string, width: number): string {
  if (!(width > 0)) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    const first = lines[i]!;
    if (!isProse(first)) {
      // An example command goes on over the lines its ` \` ends.
      let end = i + 1;
      if (first.trim().startsWith('$ ')) while (end < lines.length && / \\$/.test(lines[end - 1]!)) end++;
      out.push(...fitExample(lines.slice(i, end), width));
      i = end;
      continue;
    }
    const indent = indentOf(first);
    let end = i + 1;
    while (end < lines.length && !isHeading(lines[end - 1]!) && isProse(lines[end]!) && indentOf(lines[end]!) === indent) {
      end++;
    }
    const paragraph = lines.slice(i, end);
    if (paragraph.some((line) => visibleLength(line) > width)) {
      const words = paragraph.flatMap((line) => line.trim().split(/ +/));
      const pad = ' '.repeat(indent);
      for (const line of wrapWords(words, Math.max(1, width - indent))) out.push(pad + line);
    } else {
      out.push(...paragraph);
    }
    i = end;
  }
  return out.join('\n');
}
