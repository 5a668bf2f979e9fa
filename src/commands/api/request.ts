/** `vouchers api METHOD PATH`: one request through the pipeline, the body printed as the server sent it. */
import { STATUS_CODES } from 'node:http';
import { UsageError } from '../../core/errors/index.js';
import { apiErrorFromResponse } from '../../core/http/api-error.js';
import type { ApiResponse } from '../../core/http/types.js';
import { driftReporter, strictContract } from '../../core/http/drift-report.js';
import { findEndpoint, schemaLoader, validateResponse } from '../../core/http/validate.js';
import { err, out, type IO } from '../../core/io/io.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import type { Factory } from '../../factory.js';
import { assertJson, readBodyArg } from './json-input.js';
import { confirmMoneyMove } from './money-guard.js';

export interface ApiOptions {
  data?: string;
  query?: string[];
  header?: string[];
  idempotencyKey?: string;
  include?: boolean;
  raw?: boolean;
  json?: boolean;
  reveal?: boolean;
  yes?: boolean;
}

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface ApiRequest {
  method: string;
  /** Path relative to the base URL, with the query appended. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  idempotencyKey: string | undefined;
}

/** Turn arguments and flags into a request; every problem is a UsageError. */
export async function buildRequest(io: IO, methodArg: string, pathArg: string, opts: ApiOptions): Promise<ApiRequest> {
  const method = methodArg.toUpperCase();
  if (!(API_METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`unknown method ${JSON.stringify(methodArg)}`, `use one of ${API_METHODS.join(', ')}`);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathArg)) {
    throw new UsageError(`PATH must be relative to the base URL, not ${JSON.stringify(pathArg)}`, 'e.g. vouchers api GET /wallets (use --base-url or a profile to choose the server)');
  }
  let path = pathArg.startsWith('/') ? pathArg : '/' + pathArg;
  const params = new URLSearchParams();
  for (const q of opts.query ?? []) {
    const eq = q.indexOf('=');
    if (eq <= 0) throw new UsageError(`--query ${JSON.stringify(q)} is not key=value`, 'e.g. --query currency=USD');
    params.append(q.slice(0, eq), q.slice(eq + 1));
  }
  const qs = params.toString();
  if (qs) path += (path.includes('?') ? '&' : '?') + qs;
  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!name || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header ${JSON.stringify(h)} is not name:value`, 'e.g. --header "X-Sandbox-Simulate: cache-miss"');
    const value = h.slice(colon + 1).trim();
    // A field value is visible characters, spaces and tabs (RFC 9110 §5.5): a CR or LF would
    // end the header (and start another), so it is the command line that is wrong.
    if (/[\0-\x08\x0a-\x1f\x7f]/.test(value)) {
      throw new UsageError(`--header ${name}: the value holds a control character (CR, LF or another); a header value is one line of text`, `remove the line break from the value, e.g. --header "${name}: value"`);
    }
    headers[name] = value;
  }
  let body: string | undefined;
  if (opts.data !== undefined) {
    if (method === 'GET' || method === 'HEAD') throw new UsageError(`${method} requests carry no body`, 'use --query for parameters, or another method');
    body = await readBodyArg(io, opts.data, '--data');
    assertJson(body, '--data');
  }
  return { method, path, headers, body, idempotencyKey: opts.idempotencyKey };
}

function statusLine(res: ApiResponse): string {
  return `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd();
}

async function printResponse(io: IO, res: ApiResponse, opts: ApiOptions): Promise<void> {
  if (opts.include) {
    const lines = [statusLine(res), ...Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`)];
    await out(io, lines.join('\n') + '\n\n');
  }
  if (res.text === '') return;
  // Codes and secrets never reach the screen unasked, whatever the endpoint calls them.
  const masked = res.data === undefined || opts.reveal ? res.data : maskSecrets(maskCodes(res.data));
  const changed = masked !== undefined && JSON.stringify(masked) !== JSON.stringify(res.data);
  const pretty = (!opts.raw || changed) && (io.stdoutIsTTY || opts.json || changed) && res.data !== undefined;
  if (pretty) {
    await out(io, JSON.stringify(masked, null, 2) + '\n');
  } else {
    await out(io, res.text);
  }
  if (changed) err(io, `Voucher codes, pins or secrets in the answer are masked: add --reveal to print them${opts.raw ? ' (and the body byte for byte)' : ''}${WRITES.has(res.idempotencyKey ? 'POST' : '') ? `; replay this answer with --idempotency-key ${res.idempotencyKey} --reveal` : ''}\n`);
}

export async function run(f: Factory, methodArg: string, pathArg: string, opts: ApiOptions): Promise<void> {
  const req = await buildRequest(f.io, methodArg, pathArg, opts);
  // Orders, payouts and cancellations ask on a production profile, as their own commands do.
  await confirmMoneyMove(f.io, await f.profile(), req.method, req.path, Boolean(opts.yes));
  const client = await f.client();
  const pathOnly = req.path.split('?')[0]!;
  // The schemas load while the request is on its way; awaited once the answer is a 2xx.
  const endpoint = opts.raw ? undefined : schemaLoader(() => findEndpoint(req.method, pathOnly));
  const res = await client.request({
    method: req.method,
    path: req.path,
    body: req.body,
    headers: req.headers,
    idempotencyKey: req.idempotencyKey,
    raw: true,
    throwHttpErrors: false,
    signal: f.io.signal,
    onSent: () => void endpoint?.(),
  });
  if (WRITES.has(req.method)) {
    err(f.io, res.idempotencyKey
      ? `Idempotency-Key: ${res.idempotencyKey} (retry with --idempotency-key ${res.idempotencyKey} to get this result again without repeating the write)\n`
      : 'Idempotency-Key: none sent (pass --idempotency-key to make a retry of this write safe)\n');
  }
  await printResponse(f.io, res, opts);
  if (res.status < 200 || res.status >= 300) throw apiErrorFromResponse(res, { method: req.method, path: pathOnly }, f.clock.now());
  const schemas = await endpoint?.();
  if (!schemas) return;
  // Printed above as received; a difference from the contract is a warning (an error with --strict-contract).
  const deps = { io: f.io, globals: f.globals() };
  const checked = validateResponse({ method: req.method, path: pathOnly, status: res.status, data: res.data, text: res.text, traceId: res.traceId, endpoint: schemas, strict: strictContract(deps) });
  if (checked.drift) driftReporter(deps)(checked.drift);
}
