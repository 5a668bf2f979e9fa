/**
 * Help laid out for the width it is printed at. commander wraps the option and command
 * lists itself; the text a command adds after them (notes, examples, environment) is
 * written at a fixed width, so on a narrower terminal the terminal broke its lines in the
 * middle of words. Here a paragraph with a line too wide is wrapped again, at spaces.
 *
 * A paragraph is a run of lines of prose with the same indentation. Lines that are not
 * prose keep their layout: an example command (`$ vouchers …`, which must stay one line
 * to be copied; the words beside it are wrapped in their own column, or under it when the
 * column would be too narrow), and a line of aligned columns (three spaces or more between
 * two words). A heading (`Examples:`) is a paragraph of its own.
 * Pure; plain length as the width (help text has no wide characters).
 */

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
  if (text === '') return false;
  if (text.startsWith('$ ') || / \$ /.test(text)) return false;
  return !/\S {3,}\S/.test(text);
}

function isHeading(line: string): boolean {
  return /^[A-Z][A-Za-z ]*:$/.test(line.trim());
}

/**
 * An example command with words beside it (`$ vouchers demo   walk through…`), too wide:
 * the words wrapped in their column, or on the lines under the command when that column
 * would be narrower than MIN_COLUMN. The command itself is never broken. Any other line
 * is kept as it is.
 */
function fitExample(line: string, width: number): string[] {
  const parts = /^(\s*\$ .*?\S {3,})(\S.*)$/.exec(line);
  if (!parts || visibleLength(line) <= width) return [line];
  const [, command, words] = parts as unknown as [string, string, string];
  const column = visibleLength(command);
  if (width - column >= MIN_COLUMN) {
    const wrapped = wrapWords(words.split(/ +/), width - column);
    return [command + wrapped[0]!, ...wrapped.slice(1).map((l) => ' '.repeat(column) + l)];
  }
  const under = ' '.repeat(indentOf(line) + 4);
  return [command.trimEnd(), ...wrapWords(words.split(/ +/), Math.max(1, width - under.length)).map((l) => under + l)];
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
      out.push(...fitExample(first, width));
      i++;
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
