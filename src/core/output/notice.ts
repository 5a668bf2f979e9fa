/**
 * A note for the user on stderr (a fallback taken, a value sent as given): a plain line, or
 * with JSON output one JSON line (`{"notice": {"code", "message"}}`), so stderr stays
 * machine-readable there. A JSON notice's code says what it is: its message never starts
 * with the "Warning: " a line for people does.
 */
import { err, type IO } from '../io/io.js';
import type { OutputSettings } from './options.js';

export function notice(io: IO, settings: Pick<OutputSettings, 'format'>, code: string, text: string): void {
  // A message written as a line (ending in a line break) is taken as it is: one line break, never two.
  const message = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (settings.format === 'json' || settings.format === 'ndjson')
    err(io, JSON.stringify({ notice: { code, message: message.replace(/^Warning: /, '') } }) + '\n');
  else err(io, `${message}\n`);
}

/**
 * notice() for a command that has no output settings at hand: JSON when the command line
 * asked for machine-readable output (--json, --output json|ndjson, --jmespath).
 */
export function noticeFor(f: { io: IO; globals(): { json?: boolean } }, code: string, message: string): void {
  notice(f.io, { format: f.globals().json === true ? 'json' : 'table' }, code, message);
}
