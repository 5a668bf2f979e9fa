/**
 * A command line as the shell reads it: its words (a quoted argument one word), and the
 * lines it is broken into when too wide, each but the last ending in the shell's line
 * continuation ` \`, so that it still pastes whole. Shared by the notes wrapped on a
 * terminal (note-wrap.ts) and the examples of --help (core/run/help-text.ts). Pure, and
 * imports nothing: help loads it on every start.
 */

const SGR = /\u001b\[[0-9;]*m/g;
export const FLAG = /^-{1,2}[A-Za-z]/;

/** Where the quote at `open` closes (a backslash escapes a double quote inside double quotes), or -1. */
function closingQuote(text: string, open: number): number {
  const quote = text[open];
  for (let j = open + 1; j < text.length; j++) {
    if (text[j] === quote) return j;
    if (quote === '"' && text[j] === '\\') j++;
  }
  return -1;
}

/**
 * A command split at its spaces, except those inside a quoted argument (`--type 'order v2'`,
 * `--type='a b'`, `'it'\\''s'`), which is one word: broken there, a command would no longer
 * paste as it was. A quote opens only at the start of a word or after `=` (an apostrophe in
 * a word opens nothing), and one never closed opens nothing.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    let end = i;
    let shell = false;
    while (end < text.length && text[end] !== ' ') {
      const c = text[end]!;
      const opens = (c === "'" || c === '"') && (shell || end === i || text[end - 1] === '=');
      const close = opens ? closingQuote(text, end) : -1;
      if (close > end) {
        shell = true;
        end = close + 1;
      } else end += shell && c === '\\' ? 2 : 1;
    }
    words.push(text.slice(i, end));
    i = end;
  }
  return words;
}

/**
 * A command too wide for the terminal as lines `lead` cells in (each further one `hang`
 * more, 2 unless told), each but the last ending in ` \\`; a flag stays with its value, and
 * a word wider than the terminal is left to it. `measure` gives the cells a text takes.
 */
export function commandLines(command: string, lead: number, width: number, measure: (text: string) => number, hang = 2): string[] {
  const words: string[] = [];
  for (const word of shellWords(command)) {
    const last = words.at(-1);
    if (
      last !== undefined &&
      FLAG.test(last.replace(SGR, '')) &&
      !last.includes('=') &&
      !FLAG.test(word.replace(SGR, '')) &&
      !last.includes(' ')
    )
      words[words.length - 1] = `${last} ${word}`;
    else words.push(word);
  }
  const lines: string[] = [];
  let current = ' '.repeat(lead) + words[0]!;
  for (const word of words.slice(1)) {
    if (measure(`${current} ${word} \\`) <= width) current += ` ${word}`;
    else {
      lines.push(`${current} \\`);
      current = ' '.repeat(Math.max(0, Math.min(lead + hang, width - measure(word) - 2))) + word;
    }
  }
  lines.push(current);
  return lines;
}
