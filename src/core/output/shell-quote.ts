/** The project's shell quoting: commands shown to be copied into a POSIX shell. Light: no imports. */

/** A word as a POSIX shell reads it back: bare when it is safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An operand of a suggested command (an order or event id), as opposed to a command word or flag. */
export interface Operand {
  readonly operand: string;
}

/** `id` as an operand of a suggested command (see commandLine). */
export function operand(id: string): Operand {
  return { operand: id };
}

/**
 * A command line to paste, each word shell-quoted. A server may issue ids of any shape: an
 * operand starting with `-` would be read as a flag, so when one does, the operands go last,
 * after `--` (every flag before it), where they are read as operands whatever they hold.
 */
export function commandLine(words: readonly (string | Operand)[]): string {
  const isOperand = (w: string | Operand): w is Operand => typeof w !== 'string';
  const dashed = words.some((w) => isOperand(w) && w.operand.startsWith('-'));
  const ordered: string[] = dashed
    ? [...words.filter((w): w is string => !isOperand(w)), '--', ...words.filter(isOperand).map((w) => w.operand)]
    : words.map((w) => (isOperand(w) ? w.operand : w));
  return ordered.map(shellQuote).join(' ');
}
