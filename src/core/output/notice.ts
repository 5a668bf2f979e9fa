/**
 * A note for the user on stderr (a fallback taken, a value sent as given): a plain line, or
 * with JSON output one JSON line (`{"notice": {"code", "message"}}`), so stderr stays
 * machine-readable there.
 */
import { err, type IO } from '../io/io.js';
import type { OutputSettings } from './options.js';

export function notice(io: IO, settings: Pick<OutputSettings, 'format'>, code: string, message: string): void {
  if (settings.format === 'json' || settings.format === 'ndjson') err(io, JSON.stringify({ notice: { code, message } }) + '\n');
  else err(io, `${message}\n`);
}
