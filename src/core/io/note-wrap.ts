/**
 * Notes on a terminal's stderr (hints, warnings, what a command did) wrapped to its width at
 * spaces, as the help's notes are (core/run/help-text.ts): a terminal breaks a long line
 * anywhere, in the middle of a word or of an idempotency key. A command meant to be copied
 * (`vouchers …` up to the end of its clause) is never broken in a line: it goes whole onto
 * the next line, further left than the text when it needs to, and one wider than the
 * terminal is broken at its spaces (never inside a quoted argument), each line but the last
 * ending in the shell's line continuation ` \`, so that it still pastes whole. A line's continuation
 * lines start under its text: after its indentation, or under the value of a `label  value`
 * line (an error's `  hint      …`). Lines that are drawn rather than written (a carriage
 * return, cursor control, tabs) are kept as they are. Pure.
 *
 * Widths are terminal cells: a CJK character or an emoji takes two, a combining mark none.
 * A note is written synchronously, and string-width (what tables measure with,
 * core/output/cells.ts) costs tens of milliseconds to load and to first measure text that is
 * not ASCII, so notes are measured here with the East Asian Width table string-width itself
 * uses, a code point at a time; ASCII text, almost every note, by its length.
 */
import { eastAsianWidth } from 'get-east-asian-width';
import { COMMAND_ARGUMENTS, COMMAND_TREE, type CommandTree } from './command-names.js';
import { FLAG, commandLines, shellWords } from './shell-command.js';

const SGR = /\u001b\[[0-9;]*m/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Code points that take no cell: combining marks, format characters (ZWJ, bidi marks), controls. */
const NO_CELL = /[\p{Mn}\p{Me}\p{Cf}\p{Cc}]/u;

/** The cells `text` takes on a terminal, colour codes left out. */
function visibleLength(text: string): number {
  const plain = text.replace(SGR, '');
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  let width = 0;
  let last = 0;
  for (const char of plain) {
    const code = char.codePointAt(0)!;
    // An emoji presentation selector (✔️) or a keycap (1️⃣) makes the character before it an emoji: two cells.
    if (code === 0xfe0f || code === 0x20e3) {
      if (last === 1) width += 1;
      last = 2;
      continue;
    }
    if (NO_CELL.test(char)) continue;
    last = eastAsianWidth(code);
    width += last;
  }
  return width;
}

/** A word that ends a clause (`shows;`, `orders,`) ends the command it is part of. */
const CLAUSE_END = /[;,):.`]$/;
/** An id, an amount, a path, a placeholder, a quoted value: an argument, not a word of prose. */
const ARG = /[0-9_/=\u2026<>A-Z$@{[]|^['"]/;

/**
 * `words` with a flag's quoted value holding spaces (`--type 'order v2'`, `--type='a b'`) as
 * one word. Only a flag's: a phrase quoted in prose still wraps at its spaces.
 */
function withQuotedValues(words: string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const plain = words[k]!.replace(SGR, '');
    const value = /^--?[A-Za-z][\w-]*=['"]/.test(plain) || (/^['"]/.test(plain) && k > 0 && FLAG.test(words[k - 1]!.replace(SGR, '')));
    const first = value ? shellWords(words.slice(k).join(' '))[0]! : words[k]!;
    const taken = first.split(' ').length;
    out.push(first);
    k += taken - 1;
  }
  return out;
}

/**
 * The words of a line, a command as one word: `vouchers`, its global flags with their values
 * (`--profile acme`), its command names (those of the command tree: `doctor checks` is a
 * command and a word of prose), then its flags, their values and its arguments, up to a
 * word of prose or the end of a clause; and a flag with its value.
 */
function units(text: string): string[] {
  const words = withQuotedValues(text.split(/ +/).filter((w) => w !== ''));
  const plain = (w: string) => w.replace(SGR, '');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    let unit = words[i]!;
    if (/^[`'"(]?vouchers$/.test(plain(unit))) {
      let names = 0;
      let flags = false;
      let value = false;
      let tree: CommandTree = COMMAND_TREE;
      const path: string[] = [];
      let args = 0;
      while (i + 1 < words.length && !CLAUSE_END.test(plain(unit))) {
        const next = plain(words[i + 1]!);
        const flag = FLAG.test(next);
        // Flags before the first name are global ones: the names still follow them.
        const word = next.replace(CLAUSE_END, '');
        const name = !flags && !value && Object.hasOwn(tree, word);
        // A word the command still requires as an argument, lowercase too (`profiles set acme
        // webhook_secret`), or one it may take that ends the clause or the line (`profiles show acme;`).
        const arity = names > 0 && !name && !flag && !value ? COMMAND_ARGUMENTS[path.join(' ')] : undefined;
        const argument =
          arity !== undefined && (args < arity[0] || (args < arity[0] + arity[1] && (CLAUSE_END.test(next) || i + 2 === words.length)));
        // A parenthesis opens an aside, never an argument (unquoted, a shell reads it as syntax):
        // a trace ID after a command (`vouchers doctor (trace 4bf9…)`) is not part of it.
        if (next.startsWith('(') || (!flag && !value && !name && !argument && !ARG.test(next))) break;
        if (name) {
          names++;
          path.push(word);
          tree = tree[word]!;
        } else if (!flag && !value) args++;
        flags ||= flag && names > 0;
        value = flag && !next.includes('=');
        unit += ` ${words[++i]!}`;
      }
    }
    // A flag outside a command keeps its value beside it (`--idempotency-key 809a…`), a word
    // that ends the clause too (`--output json.`).
    else if (
      FLAG.test(plain(unit)) &&
      !unit.includes('=') &&
      i + 1 < words.length &&
      (ARG.test(plain(words[i + 1]!)) || /^[a-z0-9][\w-]*[;,):.]$/.test(plain(words[i + 1]!)))
    ) {
      unit += ` ${words[++i]!}`;
    }
    // A trace ID stays beside its label (`· trace 4bf92f…`), which support reads it by.
    else if (/^(?:\u00b7|\(?trace)$/.test(plain(unit))) {
      const label = plain(unit) === '\u00b7' ? 2 : 1;
      const id = words[i + label];
      if ((label === 1 || plain(words[i + 1] ?? '') === 'trace') && id !== undefined && ARG.test(plain(id))) {
        for (let k = 0; k < label; k++) unit += ` ${words[++i]!}`;
      }
    }
    out.push(unit);
  }
  return out;
}

/** The start of `line` holding its first `n` visible characters (with the colour codes among them). */
function visiblePrefix(line: string, n: number): string {
  let seen = 0;
  let i = 0;
  while (i < line.length && seen < n) {
    const code = /^\u001b\[[0-9;]*m/.exec(line.slice(i));
    if (code) i += code[0].length;
    else {
      i += line.codePointAt(i)! > 0xffff ? 2 : 1;
      seen++;
    }
  }
  return line.slice(0, i);
}

function wrapLine(line: string, width: number, layout: NoteLayout = {}): string[] {
  // A JSON line, or one drawn rather than written: as it is.
  if (visibleLength(line) <= width || /^\{|[\t\r]|\u001b\[(?![0-9;]*m)/.test(line)) return [line];
  const plain = line.replace(SGR, '');
  // `  hint      text`: continuation lines under the text; else under the line's indentation.
  const label = /^( +\S+(?: \S+)? {2,})\S/.exec(plain)?.[1];
  const byLabel = label !== undefined && visibleLength(label) <= width / 2;
  const head = layout.hang !== undefined ? '' : visiblePrefix(line, byLabel ? [...label].length : /^ */.exec(plain)![0].length);
  const lead = layout.hang ?? visibleLength(head);
  const hang = ' '.repeat(lead);
  const lines: string[] = [];
  let current = '';
  // With `whole`, what is kept together but is no command (a trace ID with its label, a
  // flag with its value) and is wider than the terminal is laid out a word at a time.
  const pieces = units(line.slice(head.length)).flatMap((u) =>
    layout.whole && visibleLength(u) > width && !COMMAND.test(u.replace(SGR, '')) ? u.split(/ +/) : [u],
  );
  for (const unit of pieces) {
    const size = visibleLength(unit);
    const room = width - (lines.length === 0 ? visibleLength(head) : lead);
    if (current !== '' && visibleLength(current) + 1 + size > room) {
      lines.push(hang + current);
      current = unit;
    } else {
      current = current === '' ? unit : `${current} ${unit}`;
    }
    // A command wider than the room under the text, not than the terminal, starts as far
    // left as it needs to fit whole, on a line of its own.
    if (current === unit && lines.length > 0 && lead + size > width && size <= width) {
      lines.push(' '.repeat(width - size) + unit);
      current = '';
    }
    // A word or a command wider than the terminal, with `whole`: on a line of its own from
    // the left edge, for the terminal to fold, so that a copy still gives it whole.
    if (current === unit && size > width && layout.whole) {
      lines.push(lines.length === 0 ? hang + unit : unit);
      current = '';
    }
    // A command wider than the terminal: on lines of its own, broken at its spaces, each
    // line but the last ending in the shell's line continuation, so that it is copied whole.
    if (current === unit && size > width && COMMAND.test(unit.replace(SGR, ''))) {
      lines.push(...commandLines(unit, lead, width, visibleLength));
      current = '';
    }
  }
  if (current !== '') lines.push(hang + current);
  return lines.map((l, i) => (i === 0 ? head + l.slice(hang.length) : l));
}

const COMMAND = /^[`'"(]?vouchers /;

/** How wrapNote lays out a line, where a caller needs other than its indentation or label. */
export interface NoteLayout {
  /** Continuation lines this many cells in, whatever the line's own indentation (doctor's checks: 2, under the label). */
  hang?: number;
  /**
   * A word or a command wider than the terminal goes whole on a line of its own from the
   * left edge, for the terminal to fold (a copy gives it whole), rather than being broken
   * into lines ending in ` \\`.
   */
  whole?: boolean;
}

/** `text` with each line wider than `width` wrapped (see the top of this file). */
export function wrapNote(text: string, width: number, layout: NoteLayout = {}): string {
  if (!(width > 20)) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, layout))
    .join('\n');
}
