/**
 * RFC 4180 CSV read in pieces: quoted cells with "" escapes and line breaks, CRLF or LF,
 * cells separated by a comma or the one character given (a semicolon, a tab).
 * Feed it text with `push` as it arrives and `end` it once; each returns the records
 * completed so far, with the line each starts on. Holds one record at most.
 */
export class CsvReader {
  private cells: string[] = [];
  private cell = '';
  private quoted = false;
  private line: number;
  private start: number;
  private touched = false;
  /** The end of the last piece that could not be read yet: what it means depends on the next character. */
  private held = '';
  private readonly sepCode: number;

  /** `separator`: one character (a comma unless told); `firstLine`: the line number of the text's first line. */
  constructor(
    private readonly separator: string = ',',
    firstLine = 1,
  ) {
    this.sepCode = separator.charCodeAt(0);
    this.line = firstLine;
    this.start = firstLine;
  }

  push(piece: string, records: { line: number; cells: string[] }[] = []): { line: number; cells: string[] }[] {
    this.held = this.scan(this.held + piece, records, false);
    return records;
  }

  end(records: { line: number; cells: string[] }[] = []): { line: number; cells: string[] }[] {
    this.scan(this.held, records, true);
    this.held = '';
    if (this.quoted) records.push({ line: this.start, cells: [...this.cells, this.cell, '\u0000unterminated'] });
    else if (this.touched || this.cell !== '' || this.cells.length > 0) {
      this.cells.push(this.cell);
      records.push({ line: this.start, cells: this.cells });
    }
    this.cells = [];
    this.cell = '';
    this.touched = false;
    this.quoted = false;
    return records;
  }

  /** Scan `text`; returns what is left for the next piece (a last '"' or '\r' whose meaning depends on what follows). */
  private scan(text: string, records: { line: number; cells: string[] }[], final: boolean): string {
    let { cells, cell, quoted, line, start, touched } = this;
    let rest = '';
    /** The next quote from i on (text.length: none). */
    let quote = -1;
    for (let i = 0; i < text.length; i++) {
      // A whole line without a quote (nearly every line), split by the runtime rather than
      // read a character at a time: the same cells, CRLF or LF.
      if (!quoted && !touched && cell === '' && cells.length === 0) {
        const nl = text.indexOf('\n', i);
        if (nl !== -1) {
          if (quote < i) {
            quote = text.indexOf('"', i);
            if (quote === -1) quote = text.length;
          }
          if (quote > nl) {
            const end = nl > i && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
            if (end > i) records.push({ line: start, cells: text.slice(i, end).split(this.separator) });
            line++;
            start = line;
            i = nl;
            continue;
          }
        }
      }
      const ch = text[i] as string;
      if (!final && i === text.length - 1 && ((quoted && ch === '"') || ch === '\r')) {
        rest = ch;
        break;
      }
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i++;
          } else quoted = false;
          continue;
        }
        // Up to the next quote in one piece, counting its line breaks.
        let end = text.indexOf('"', i);
        if (end === -1) end = text.length;
        for (let nl = text.indexOf('\n', i); nl !== -1 && nl < end; nl = text.indexOf('\n', nl + 1)) line++;
        cell += text.slice(i, end);
        i = end - 1;
        continue;
      }
      // A run of ordinary characters in one piece.
      let end = i;
      const sep = this.sepCode;
      for (let c = text.charCodeAt(end); end < text.length && c !== sep && c !== 10 && c !== 13 && c !== 34; c = text.charCodeAt(++end));
      if (end > i) {
        cell += text.slice(i, end);
        touched = true;
        i = end - 1;
        continue;
      }
      if (ch === '"' && cell === '') {
        quoted = true;
        touched = true;
        continue;
      }
      if (ch === this.separator) {
        cells.push(cell);
        cell = '';
        touched = true;
        continue;
      }
      if (ch === '\r' && text[i + 1] === '\n') continue;
      if (ch === '\n') {
        cells.push(cell);
        if (touched || cells.some((c) => c !== '')) records.push({ line: start, cells });
        cells = [];
        cell = '';
        touched = false;
        line++;
        start = line;
        continue;
      }
      cell += ch;
      touched = true;
    }
    Object.assign(this, { cells, cell, quoted, line, start, touched });
    return rest;
  }
}

/** RFC 4180 CSV of a whole text (CsvReader in one piece). */
export function parseCsv(text: string): { line: number; cells: string[] }[] {
  const reader = new CsvReader();
  return reader.end(reader.push(text));
}
