/** A 2xx answer with nothing in it, where one resource was asked for. */
import { parseJsonBody } from '../http/api-error.js';
import type { IO } from '../io/io.js';
import { notice } from './notice.js';
import type { OutputSettings } from './options.js';
import { printJson } from './print.js';

/**
 * A 2xx answer that holds nothing to show where one resource was asked for (an empty 200, a
 * 204, a body that is not JSON): said on stderr with its status and trace ID (`NO_BODY`),
 * `null` on stdout with JSON output, never an empty record. True when so: the caller shows
 * nothing more (exit 0, the request succeeded).
 */
export async function printedNoBody(
  io: IO,
  settings: OutputSettings,
  answer: { status: number; text: string; traceId: string | undefined },
  request: string,
): Promise<boolean> {
  const what = answer.text.trim() === '' ? 'no body' : parseJsonBody(answer.text) === undefined ? 'a body that is not JSON' : undefined;
  if (what === undefined) return false;
  if (settings.format === 'json' || settings.format === 'ndjson') await printJson(io, null);
  notice(
    io,
    settings,
    'NO_BODY',
    `The server answered ${request} with HTTP ${answer.status} and ${what}: nothing to show${answer.traceId ? ` · trace ${answer.traceId}` : ''}`,
  );
  return true;
}
