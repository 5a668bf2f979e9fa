/**
 * A delivery as a support engineer is handed it: its headers, one `Name: value` a line (as
 * a server log or `curl -v` shows them, CRLF or LF), maybe after the request line
 * (`POST /webhooks HTTP/1.1`), and maybe followed by a blank line and the raw body: a whole
 * saved request.
 */
import { UsageError } from '../../core/errors/index.js';
import { setOwnField } from '../../core/own-field.js';
import { headerLine } from '../../listener/flags.js';

export interface SavedDelivery {
  /** Lower-case names; a header given on several lines has its values joined by ", " (as Node joins them). */
  headers: Record<string, string>;
  /** The path of the request line, with its query, when the file starts with one. */
  path?: string;
  /** The bytes after the blank line that ends the headers, when there are any. */
  body?: Buffer;
}

const REQUEST_LINE = /^[A-Z]+ (\S+) HTTP\/\d(\.\d)?$/;

export function parseSavedDelivery(bytes: Buffer, flag: string): SavedDelivery {
  // The head ends at the first empty line, whether lines end in CRLF or LF.
  const end = /\r?\n\r?\n/.exec(bytes.toString('latin1'));
  const head = bytes.subarray(0, end ? end.index : bytes.length).toString('utf8');
  const body = end ? bytes.subarray(end.index + end[0].length) : undefined;
  const headers: Record<string, string> = {};
  let path: string | undefined;
  const lines = head.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (i === 0 && REQUEST_LINE.test(line.trim())) {
      path = REQUEST_LINE.exec(line.trim())![1];
      return;
    }
    if (line.trim() === '') return;
    const parsed = headerLine(line);
    if (!parsed)
      throw new UsageError(
        `${flag}: line ${i + 1} ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line)} is not "Name: value"`,
        `give the delivery's headers one a line, e.g. "X-Webhook-Signature: t=1732270000,v1=5f0c…"; a blank line ends them, and the raw body may follow it`,
      );
    const [name, value] = parsed;
    setOwnField(headers, name, Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value);
  });
  return { headers, ...(path !== undefined ? { path } : {}), ...(body !== undefined && body.length > 0 ? { body } : {}) };
}
