/** `vouchers api METHOD PATH`: one request through the pipeline, the body printed as the server sent it. */
import { API_METHODS } from '../argument-words.js';
import { CliError, faultAfterWrite, InterruptedError, QueryRunError, UsageError } from '../../core/errors/index.js';
import { apiErrorFromResponse } from '../../core/http/api-error.js';
import { idempotencyKeyFor } from '../../core/http/call.js';
import { refuseSecretAsKey } from '../../core/http/secret-key.js';
import type { ApiResponse } from '../../core/http/types.js';
import { driftReporter, strictContract } from '../../core/output/drift-report.js';
import { checkAnswer } from '../../core/http/validate.js';
import { PageLoopError, pagingOf } from '../../core/http/paging.js';
import { followedMessage, pagesInterrupted, pagesStopped, unfollowableError } from '../../core/output/paging-notice.js';
import { findRoute } from '../../contract/routes.js';
import { answerShown, type IO } from '../../core/io/io.js';
import { suggestedCommand, type HintFlag } from '../../core/output/next-page.js';
import type { Factory } from '../../core/run/factory.js';
import { assertJson, bodyOrigin, readBodyArg } from './json-input.js';
import { confirmMoneyMove, createsCost } from './money-guard.js';
import type { ApiOptions } from './index.js';
import { noticeFor } from '../../core/output/notice.js';
import { printResponse, type ContractCheck } from './print-response.js';

export type { ApiOptions };

/** Pages `--paginate` follows unless --max-pages says otherwise. */
export const DEFAULT_MAX_PAGES = 1000;
const MAX_PAGES_LIMIT = 1_000_000;

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
    throw new UsageError(
      `PATH must be relative to the base URL, not ${JSON.stringify(pathArg)}`,
      'e.g. vouchers api GET /wallets (use --base-url or a profile to choose the server)',
    );
  }
  // A request line carries printable ASCII only: a space or a control character would be
  // refused by the HTTP client after the request was signed, and a non-ASCII character has
  // no single encoding. Query values given with --query are encoded here.
  // A backslash too: servers that read it as `/` would let `\..\` climb out of the base URL.
  const bad = /[^\x21-\x7e]|\\/.exec(pathArg);
  if (bad) {
    const what = bad[0] === ' ' ? 'a space' : `the character ${JSON.stringify(bad[0])}`;
    throw new UsageError(
      `PATH ${JSON.stringify(pathArg)} holds ${what}, which a URL cannot carry as it is`,
      'percent-encode it (a space is %20), or give query values with --query key=value, which encodes them',
    );
  }
  let path = pathArg.startsWith('/') ? pathArg : '/' + pathArg;
  // `.` and `..` segments (spelled out or percent-encoded) would take the signed request, with
  // the partner's credentials, outside the base URL the profile names.
  const segments = path.split('?')[0]!.split(/\/|%2f|%5c/i);
  if (segments.some((seg) => /^(\.|%2e){1,2}$/i.test(seg)))
    throw new UsageError(
      `PATH ${JSON.stringify(pathArg)} has a . or .. segment: paths are relative to the base URL, and never leave it`,
      'give the path under the base URL as it is, e.g. vouchers api GET /orders/ORDER_ID',
    );
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
    if (!name || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(`--header ${JSON.stringify(h)} is not name:value`, 'e.g. --header "X-Sandbox-Simulate: rate_limit"');
    const value = h.slice(colon + 1).trim();
    const owned = OWN_HEADERS[name.toLowerCase()];
    if (owned) throw new UsageError(`--header ${name}: vouchers sets this header itself on every request`, owned);
    // A field value is visible characters, spaces and tabs (RFC 9110 §5.5): a CR or LF would
    // end the header (and start another), so it is the command line that is wrong.
    if (/[\0-\x08\x0a-\x1f\x7f]/.test(value)) {
      throw new UsageError(
        `--header ${name}: the value holds a control character (CR, LF or another); a header value is one line of text`,
        `remove the line break from the value, e.g. --header "${name}: value"`,
      );
    }
    headers[name] = value;
  }
  let body: string | undefined;
  if (opts.data !== undefined) {
    if (method === 'GET' || method === 'HEAD')
      throw new UsageError(`${method} requests carry no body`, 'use --query for parameters, or another method');
    body = await readBodyArg(io, opts.data, '--data');
    assertJson(body, '--data', bodyOrigin(io, opts.data));
  }
  if (opts.maxPages !== undefined && !opts.paginate)
    throw new UsageError('--max-pages bounds --paginate', 'add --paginate, or leave --max-pages out');
  if (opts.paginate && method !== 'GET') {
    throw new UsageError(`--paginate follows the next_cursor of GET lists, not ${method}`, `e.g. vouchers api GET /orders --paginate`);
  }
  return { method, path, headers, body, idempotencyKey: opts.idempotencyKey };
}

/**
 * A query parameter given twice (in PATH and with --query, or twice in either) is sent as
 * given, this being the raw request (a server may take a list that way: the document leaves
 * it open), with a warning before anything is sent: a server may read either value, and the
 * sandbox refuses it.
 */
function warnRepeated(f: Factory, path: string): void {
  const q = path.indexOf('?');
  if (q < 0) return;
  const params = new URLSearchParams(path.slice(q + 1));
  const name = [...params.keys()].find((k, i, all) => all.indexOf(k) !== i);
  if (name === undefined) return;
  const values = params.getAll(name);
  noticeFor(
    f,
    'QUERY_REPEATED',
    `Warning: the query parameter ${JSON.stringify(name)} is given ${values.length} times (${values.map((v) => JSON.stringify(v)).join(', ')}): sent as given; ` +
      `a server may read either value (the sandbox refuses it, 422). To send one, keep one value of ${name}, in PATH or with --query ${name}=VALUE`,
  );
}

/** `--max-pages`: a whole number of pages (default DEFAULT_MAX_PAGES). */
export function parseMaxPages(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_PAGES;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PAGES_LIMIT)
    throw new UsageError(
      `--max-pages ${JSON.stringify(text)} is not a page count`,
      `use a whole number from 1 to ${MAX_PAGES_LIMIT}, e.g. --max-pages 10`,
    );
  return n;
}

/** `path` with its `cursor` query parameter set to `cursor` (any earlier one replaced). */
export function withCursor(path: string, cursor: string): string {
  const q = path.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : path.slice(q + 1));
  params.set('cursor', cursor);
  return `${q < 0 ? path : path.slice(0, q)}?${params.toString()}`;
}

/** `path` with the next page's query (a next URL's, a Link header's, a page number) over its own, its cursor dropped. */
export function withQuery(path: string, query: Record<string, string>): string {
  const q = path.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : path.slice(q + 1));
  params.delete('cursor');
  for (const [k, v] of Object.entries(query)) params.set(k, v);
  const search = params.toString();
  return `${q < 0 ? path : path.slice(0, q)}${search ? `?${search}` : ''}`;
}

/** Headers the client makes for every request (credentials, signature, tracing), and what to use instead. */
const OWN_HEADERS: Record<string, string> = {
  'x-api-key': 'the key comes from the profile: --profile NAME, or VOUCHERS_API_KEY',
  'x-api-secret': 'the secret comes from the profile: --profile NAME, or VOUCHERS_API_SECRET',
  'x-signature': "every write is signed with the profile's secret; `vouchers sign` shows a signature without sending",
  'x-timestamp': 'the signature timestamp is the time of sending; `vouchers sign --timestamp` signs at another',
  'idempotency-key': 'use --idempotency-key KEY',
  traceparent: 'each request gets a trace ID of its own, shown with the answer',
};

export async function run(f: Factory, methodArg: string, pathArg: string, opts: ApiOptions): Promise<void> {
  const req = await buildRequest(f.io, methodArg, pathArg, opts);
  warnRepeated(f, req.path);
  const maxPages = opts.paginate ? parseMaxPages(opts.maxPages) : 0;
  // Orders, payouts and cancellations ask on a production profile, as their own commands do.
  const profile = await f.profile();
  // Before the key is shown (send): a pasted secret is neither printed nor sent.
  refuseSecretAsKey(req.idempotencyKey, profile.api_secret);
  await confirmMoneyMove(f.io, profile, req.method, req.path, Boolean(opts.yes));
  // One warning per run about answers that differ from the contract, however many pages.
  const deps = { io: f.io, globals: f.globals() };
  const check = { report: driftReporter(deps), strict: strictContract(deps) };
  if (opts.paginate) return paginate(f, req, opts, maxPages, check);
  await send(f, req, opts, check);
}

/**
 * `--paginate`: GET the list, then each page its `next_cursor` names (as `cursor`), or that
 * it names otherwise (core/http/paging.ts: a cursor under another name, sent as `cursor`; a
 * next URL's or Link header's query; a page number), saying at the end what was followed;
 * printing every page as it arrives (`--jmespath` runs on each page). Stops cleanly where a
 * page has no cursor or says `has_more: false` (a bare array or a body without one is the
 * whole list); exits 8 where a page says more follows but names no way to ask for it;
 * after --max-pages (exit 8, naming the cursor to go on from), or on Ctrl-C. A page that
 * fails exits with that page's error code, saying first, as `orders list --all` does, how
 * many pages were printed before it ("--paginate: stopped after 2 pages printed; the rest was
 * not fetched", LIST_STOPPED).
 */
async function paginate(f: Factory, req: ApiRequest, opts: ApiOptions, maxPages: number, check: ContractCheck): Promise<void> {
  // The cursors and next links followed (the first page's own path among them): one named again would loop.
  const seen = new Set<string>([req.path]);
  let path = req.path;
  const q = req.path.indexOf('?');
  const ownQuery = q < 0 ? '' : req.path.slice(q);
  let listPath = q < 0 ? req.path : req.path.slice(0, q);
  const basePath = await basePathOf(f);
  // Every page is a long job, as with orders list --all: pacing waits are waited out (with a notice), however long.
  (await f.client()).waitOutPacing?.();
  let via: string | undefined;
  const printed = (n: number) => `${n} page${n === 1 ? '' : 's'}`;
  for (let page = 1; ; page++) {
    // Stopped (by Ctrl-C, or quietly by the reader of the output going away: `| head -1`): how
    // many pages were printed, and the trace ID of the last one answered.
    if (f.io.signal.aborted) throw pagesInterrupted(new InterruptedError(), f.io.signal, `${printed(page - 1)} printed`, f.lastAnswered());
    let res: ApiResponse;
    try {
      res = await send(f, { ...req, path }, opts, check);
    } catch (error) {
      // As orders list --all: how far the list got (LIST_STOPPED), then the page's own error.
      const format = f.globals().json === true ? 'json' : 'table';
      const progress = { flag: '--paginate' as const, pages: page - 1, read: `${printed(page - 1)} printed`, said: false };
      throw pagesStopped(f.io, { format }, error, { ...progress, lastTrace: f.lastAnswered() });
    }
    const paging = pagingOf(res.data, res.headers, { basePath, path: listPath });
    via ??= paging.via;
    if (paging.unfollowable) throw unfollowableError('--paginate', printed(page), listPath, res.traceId);
    // The next page is asked for with the command's own query, a next link's path and query over it.
    if (paging.cursor === undefined && paging.path !== undefined) listPath = paging.path;
    const next =
      paging.cursor !== undefined
        ? withCursor(listPath + ownQuery, paging.cursor)
        : paging.query || paging.path !== undefined
          ? withQuery(listPath + ownQuery, paging.query ?? {})
          : undefined;
    if (next === undefined) {
      if (via) noticeFor(f, 'PAGES_FOLLOWED', followedMessage('--paginate', via, page));
      return;
    }
    const cursor = paging.cursor ?? next;
    if (seen.has(cursor)) throw new PageLoopError(page, res.traceId);
    seen.add(cursor);
    path = next;
    if (page >= maxPages) {
      const again = suggestedCommand(
        f.globals(),
        ['api', 'GET', path],
        [
          ['--paginate', true],
          ...(opts.header ?? []).map((h): HintFlag => ['-H', h]),
          ['--include', opts.include],
          ['--raw', opts.raw],
          ['--reveal', opts.reveal],
          ['--json', opts.json],
          ['--jmespath', f.io.jsonQuery?.expression],
        ],
      );
      throw new CliError(
        'pending',
        `stopped after ${page} page${page === 1 ? '' : 's'} (--max-pages ${maxPages}); the list goes on`,
        `continue from there with: ${again}`,
      );
    }
  }
}

/** The base URL's path (`/api/v1`; '' at the root or without a base URL). */
async function basePathOf(f: Factory): Promise<string> {
  const base = (await f.profile()).base_url;
  return base ? new URL(base).pathname.replace(/\/+$/, '') : '';
}

/**
 * `api GET /api/v1/wallets` on a base URL ending in /api/v1 would ask for /api/v1/api/v1/wallets
 * (a 404), and `sign POST /api/v1/orders` would sign that path: paths are relative to the base
 * URL. Refused (before sending, before signing) when the path without the repeat is an
 * endpoint of the API.
 */
export async function refuseRepeatedBasePath(f: Factory, method: string, path: string, command: 'api' | 'sign' = 'api'): Promise<void> {
  const base = (await f.profile()).base_url;
  if (!base) return;
  const prefix = await basePathOf(f);
  if (!prefix || !path.startsWith(`${prefix}/`)) return;
  const rest = path.slice(prefix.length);
  if (!findRoute(method, rest.split('?')[0]!)) return;
  throw new UsageError(
    `${path} repeats the base URL's ${prefix}: paths are relative to the base URL (${base}), so this asks for ${prefix}${path}`,
    `use vouchers ${command} ${method} ${rest}`,
  );
}

/** One request, printed; a non-2xx answer throws its error after its body is printed. */
async function send(f: Factory, req: ApiRequest, opts: ApiOptions, check: ContractCheck): Promise<ApiResponse> {
  const client = await f.client();
  const pathOnly = req.path.split('?')[0]!;
  const known = findRoute(req.method, pathOnly);
  const route = opts.raw ? undefined : known;
  if (!route) await refuseRepeatedBasePath(f, req.method, req.path);
  // The key is made here and shown before the write leaves: an answer that never comes (a
  // killed process, a closed terminal) does not take the way to retry it safely with it.
  const idempotencyKey = idempotencyKeyFor(known, req.idempotencyKey, f.ids);
  if (WRITES.has(req.method)) {
    noticeFor(
      f,
      'IDEMPOTENCY_KEY',
      idempotencyKey
        ? `Idempotency-Key: ${idempotencyKey} (retry with --idempotency-key ${idempotencyKey} to get this result again without repeating the write)`
        : 'Idempotency-Key: none sent (pass --idempotency-key to make a retry of this write safe)',
    );
  }
  const res = await client.request({
    method: req.method,
    path: req.path,
    body: req.body,
    headers: req.headers,
    idempotencyKey,
    keyGiven: req.idempotencyKey !== undefined,
    // An order or a payout: logged as shown once printed, as orders create and payouts create do.
    showsAnswer: createsCost(req.method, req.path),
    raw: true,
    throwHttpErrors: false,
    signal: f.io.signal,
  });
  try {
    await printResponse(f.io, res, opts, check, pathOnly);
  } catch (error) {
    // A write answered 2xx is done: a query that could not run on its answer does not undo it.
    if (!(error instanceof QueryRunError) || !WRITES.has(req.method) || res.status < 200 || res.status >= 300) throw error;
    throw faultAfterWrite(
      error,
      `${req.method} ${pathOnly} was answered ${res.status}`,
      idempotencyKey
        ? `do not send it again: a retry with --idempotency-key ${idempotencyKey} replays it`
        : 'do not send it again without checking what it did',
      res.traceId,
    ).withJsonFields({ idempotency_key: idempotencyKey });
  }
  if (res.status < 200 || res.status >= 300) throw apiErrorFromResponse(res, { method: req.method, path: pathOnly }, f.clock.now());
  await answerShown(f.io, res);
  if (!route) return res;
  // Printed above as received; a difference from the contract is a warning (an error with --strict-contract).
  const checked = await checkAnswer(route, {
    method: req.method,
    path: pathOnly,
    status: res.status,
    data: res.data,
    text: res.text,
    traceId: res.traceId,
    strict: check.strict,
  });
  if (checked.drift) check.report(checked.drift);
  return res;
}
