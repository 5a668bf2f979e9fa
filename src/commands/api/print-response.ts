/** How `vouchers api` prints an answer: status line and headers (--include), body, masking. */
import { STATUS_CODES } from 'node:http';
import { UsageError } from '../../core/errors/index.js';
import type { ApiResponse } from '../../core/http/types.js';
import type { driftReporter } from '../../core/output/drift-report.js';
import { err, out, type IO } from '../../core/io/io.js';
import { jsonDocument } from '../../core/output/json-text.js';
import { maskedAnswer, maskedHeader, textMasked } from '../../core/output/answer-mask.js';
import { maskText } from '../../core/output/mask-text.js';
import { maskBareSecret } from '../../api/webhooks.js';
import { redactReport } from '../reconciliation/redact.js';
import type { ApiOptions } from './index.js';

/** What lasts across the pages of one run: the contract check, and whether the masking notice was given. */
export interface ContractCheck {
  report: ReturnType<typeof driftReporter>;
  strict: boolean;
  maskedTold?: boolean;
}

function statusLine(res: ApiResponse): string {
  return `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd();
}

/**
 * The status line and headers, for --include. Content-Length is that of the body shown
 * below them: a masked body, a pretty-printed one or one with the echoed API secret taken
 * out is not the length the server sent, and a header that disagrees with the bytes under
 * it is a lie (a script that reads that many bytes would cut or overrun the body).
 */
function headerBlock(res: ApiResponse, shown: string | undefined, reveal: boolean): string {
  const lines = [statusLine(res)];
  for (const [k, v] of Object.entries(res.headers))
    lines.push(`${k}: ${k === 'content-length' && shown !== undefined ? Buffer.byteLength(shown) : reveal ? v : maskedHeader(k, v)}`);
  return lines.join('\n') + '\n\n';
}

/**
 * One answer as `vouchers api` prints it: the status line and headers with --include, the
 * body (pretty on a terminal, with --json, or when masking changed it; else as sent), codes
 * and secrets masked unless --reveal, and the masking notice once per run.
 */
export async function printResponse(io: IO, res: ApiResponse, opts: ApiOptions, check: ContractCheck, path: string): Promise<void> {
  if (res.text === '') {
    if (opts.include) await out(io, headerBlock(res, undefined, Boolean(opts.reveal)));
    return;
  }
  // Codes and secrets never reach the screen unasked, whatever the endpoint calls them.
  const masked =
    res.data === undefined || opts.reveal
      ? res.data
      : maskedAnswer(path, res.data, { webhook: maskBareSecret, reconciliation: (d) => redactReport(d, false).report });
  const ok = res.status >= 200 && res.status < 300;
  // An error's words may quote a code or secret (`card X7K2… was already redeemed`): masked as
  // the error line masks them, in a JSON error's strings and in a body that is not JSON.
  const shownData = masked !== undefined && !ok && !opts.reveal ? textMasked(masked) : masked;
  const text = res.data === undefined && !opts.reveal ? maskText(res.text) : res.text;
  const changed = (shownData !== undefined && JSON.stringify(shownData) !== JSON.stringify(res.data)) || text !== res.text;
  const pretty = (!opts.raw || changed) && (io.stdoutIsTTY || opts.json || changed) && res.data !== undefined;
  const body = io.jsonQuery && ok ? undefined : pretty ? JSON.stringify(shownData, null, 2) + '\n' : undefined;
  if (opts.include) await out(io, headerBlock(res, io.jsonQuery && ok ? undefined : (body ?? text), Boolean(opts.reveal)));
  if (io.jsonQuery && ok) {
    // --jmespath runs on the body as it would be printed: codes and secrets already masked.
    if (res.data === undefined)
      throw new UsageError(
        `the answer is not JSON${res.headers['content-type'] ? ` (${res.headers['content-type']})` : ''}: --jmespath has nothing to query`,
        'leave --jmespath out to see the body as received',
      );
    await out(io, jsonDocument(io, masked, 2));
  } else if (body !== undefined) {
    await out(io, body);
  } else {
    // Pages of --paginate are separated even when a body does not end its last line, and a
    // terminal's prompt starts on a line of its own; piped, a single body is byte for byte.
    await out(io, (opts.paginate || io.stdoutIsTTY) && !text.endsWith('\n') ? text + '\n' : text);
  }
  if (changed && !check.maskedTold) {
    check.maskedTold = true;
    err(
      io,
      `Voucher codes, pins or secrets in the answer are masked: add --reveal to print them${opts.raw ? ' (and the body byte for byte)' : ''}${res.idempotencyKey ? `; replay this answer with --idempotency-key ${res.idempotencyKey} --reveal` : ''}\n`,
    );
  }
}
