/** The project's shell quoting: commands shown to be copied into a POSIX shell. Light: no imports. */

/** A word as a POSIX shell reads it back: bare when it is safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
