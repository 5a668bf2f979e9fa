/** One resource as aligned `label  value` lines, TSV, CSV or JSON (`printRecord`). */
import type { ChalkInstance } from 'chalk';
import { asciiText } from '../io/ascii.js';
import { asciiOnly, out, type IO } from '../io/io.js';
import { display, fieldValue, hasField, pick, csvCell, tsvCell } from './cell-text.js';
import { chalkAt } from './colour.js';
import { fitsLayout, genericFields } from './generic.js';
import { jsonDocument, jsonLine } from './json-text.js';
import { maskSecrets } from './mask.js';
import type { OutputSettings } from './options.js';
import { unknownFieldsError } from './unknown-fields.js';

/** A labelled field of a single record shown on a TTY or as TSV. */
export interface RecordField {
  label: string;
  value: unknown;
  style?: (text: string, c: ChalkInstance) => string;
}

/**
 * Print one resource: aligned `label  value` lines on a TTY, `field\tvalue` lines when
 * piped, the raw record as JSON with --json.
 */
export async function printRecord(
  io: IO,
  record: unknown,
  fields: RecordField[],
  settings: OutputSettings,
  options: { required?: string[]; keepSecrets?: boolean } = {},
): Promise<void> {
  if (options.required && !fitsLayout(record, options.required)) {
    // A record of a shape this CLI does not know: its own fields, secrets masked (unless asked for).
    if (!options.keepSecrets) record = maskSecrets(record);
    fields = genericFields(record);
  }
  if (settings.fields) {
    const has = (f: string) =>
      fields.some((x) => x.label === f) ||
      (record !== null && typeof record === 'object' && hasField(record as Record<string, unknown>, f));
    const missing = settings.fields.filter((f) => !has(f));
    if (missing.length > 0) {
      const keys = record !== null && typeof record === 'object' ? Object.keys(record) : [];
      throw unknownFieldsError(missing, [...new Set([...fields.map((x) => x.label), ...keys])]);
    }
  }
  if (settings.format === 'json' || settings.format === 'ndjson') {
    const picked = pick(record, settings.fields);
    await out(io, settings.format === 'json' ? jsonDocument(io, picked, 2) : jsonLine(io, picked));
    return;
  }
  const shown = settings.fields
    ? settings.fields.map((f) => fields.find((x) => x.label === f) ?? { label: f, value: fieldValue(record as Record<string, unknown>, f) })
    : fields;
  if (settings.format === 'csv') {
    await out(io, shown.map((f) => csvCell(f.label)).join(',') + '\n' + shown.map((f) => csvCell(f.value)).join(',') + '\n');
    return;
  }
  if (settings.format === 'tsv') {
    await out(io, shown.map((f) => `${f.label}\t${tsvCell(f.value)}`).join('\n') + '\n');
    return;
  }
  await out(
    io,
    await recordText(
      io,
      shown.map((f) => ({ label: f.label, text: display(f.value), style: f.style })),
      chalkAt(settings.color),
      settings.tty,
    ),
  );
}

/**
 * Aligned `label  value` lines. On a terminal (`fit`), a value longer than its line wraps
 * under the value column (in display cells), or, when labels leave it too little room,
 * starts on the next line, indented. A value marked `whole` (an id, a trace ID: copied, not
 * read) is never broken where it fits the terminal: too long for its place, it goes onto the
 * next line, as far left as it needs to fit.
 */
export async function recordText(
  io: IO,
  shown: { label: string; text: string; style?: ((text: string, c: ChalkInstance) => string) | undefined; whole?: boolean }[],
  c: ChalkInstance,
  fit: boolean,
): Promise<string> {
  // Only ASCII where the terminal shows no more (a masked code's bullets, a · between words).
  if (asciiOnly(io)) shown = shown.map((f) => ({ ...f, text: asciiText(f.text) }));
  const width = Math.max(...shown.map((f) => f.label.length));
  // A UTF-16 unit takes at most 2 cells: string-width is loaded only when a value might not fit.
  const cells =
    fit && shown.some((f) => f.text.length * 2 > io.columns - width - 2 || f.text.includes('\n')) ? await import('./cells.js') : undefined;
  const under = io.columns - width - 2 >= MIN_VALUE_CELLS;
  return (
    shown
      .map((f) => {
        const label = c.dim(f.label.padEnd(width));
        const paint = (t: string) => (f.style && t ? f.style(t, c) : t);
        if (!cells) return `${label}  ${paint(f.text)}`;
        const size = cells.cellWidth(f.text);
        const room = under ? io.columns - width - 2 : io.columns - 4;
        if (f.whole && size > room && size <= io.columns && !/\s/.test(f.text)) {
          const indent = Math.min(under ? width + 2 : 4, io.columns - size);
          return `${c.dim(f.label)}\n${' '.repeat(indent)}${paint(f.text)}`;
        }
        if (!under) return [c.dim(f.label), ...cells.wrapCells(f.text, io.columns - 4).map((l) => `    ${paint(l)}`)].join('\n');
        const [first, ...rest] = cells.wrapCells(f.text, io.columns - width - 2);
        return [`${label}  ${paint(first!)}`, ...rest.map((l) => `${' '.repeat(width + 2)}${paint(l)}`)].join('\n');
      })
      .join('\n') + '\n'
  );
}

/** The narrowest value column a record keeps beside its labels before values go under them. */
const MIN_VALUE_CELLS = 20;
