/**
 * The characters of our output that are not ASCII, and what stands for each where only ASCII
 * can be shown (asciiOnly in core/io/io.ts): box lines, ticks and crosses, arrows, ellipses,
 * the bullets of a masked code, dashes and signs.
 */
const ASCII: Record<string, string> = {
  '…': '...',
  '→': '->',
  '•': '*',
  '·': '-',
  '–': '-',
  '—': '--',
  '−': '-',
  '×': 'x',
  '±': '+/-',
  '✔': '+',
  '✓': '+',
  '✖': 'x',
  '✗': 'x',
  '⚡': '*',
  '─': '-',
  '│': '|',
  '┌': '+',
  '┬': '+',
  '┐': '+',
  '├': '+',
  '┼': '+',
  '┤': '+',
  '└': '+',
  '┴': '+',
  '┘': '+',
};

const SYMBOLS = new RegExp(`[${Object.keys(ASCII).join('')}]`, 'gu');

/** `text` with each of those characters replaced by its ASCII stand-in; anything else as it is. */
export function asciiText(text: string): string {
  return text.replace(SYMBOLS, (ch) => ASCII[ch]!);
}
