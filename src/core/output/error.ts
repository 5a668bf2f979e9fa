/**
 * Errors on stderr as one readable block (name, code, message, HTTP status, trace ID and a
 * hint), or with --json as the error envelope plus `status`, the hint and `trace_id` (and any
 * fields the error carries, CliError.jsonFields: e.g. the idempotency_key of an order that may exist).
 */
import { Chalk } from 'chalk';
import { ApiError, CliError, NetworkError, PendingError } from '../errors/index.js';
import { asciiText } from '../io/ascii.js';
import { asciiOnly, colorEnabled, stderrColumns, type IO } from '../io/io.js';
import { wrapNote } from '../io/note-wrap.js';
import { docPath } from '../io/package-root.js';
import { suggestedCommand, type HintGlobals } from './next-page.js';
import { operand } from './shell-quote.js';
import { maskText, maskTypedValues } from './mask-text.js';
import { escapeText } from './printable.js';
import { nearestKnown } from '../run/known-word.js';
import { matchRoute, ROUTES, type Route } from '../../contract/routes.js';

export interface RenderErrorOptions {
  json: boolean;
  debug: boolean;
  color: boolean;
  /** The run's --profile / --base-url: repeated in the commands a hint suggests. */
  globals?: HintGlobals;
}

/** The trace ID an error carries (ApiError, NetworkError, PendingError, ContractMismatch, …). */
function traceOf(error: unknown): string | undefined {
  if (error instanceof ApiError || error instanceof NetworkError || error instanceof PendingError) return error.traceId;
  const t = error instanceof CliError ? (error as CliError & { traceId?: unknown }).traceId : undefined;
  return typeof t === 'string' && t !== '' ? t : undefined;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const isWrite = (e: ApiError) => e.method !== undefined && WRITES.has(e.method);
const retryLater = (e: ApiError, what: string) =>
  `${what}: retry ${e.retryAfter !== undefined ? `after ${e.retryAfter} s` : 'later'}${isWrite(e) ? ' with the same --idempotency-key, so the write runs only once' : ''}; quote the trace ID to support if it persists`;

/**
 * 400 MALFORMED_REQUEST: the server could not read the request. The body is the usual
 * cause; the sandbox also answers it for an X-Sandbox-Simulate value it does not know.
 */
function malformedHint(e: ApiError): string {
  if (/X-Sandbox-Simulate/i.test(e.message)) return 'give X-Sandbox-Simulate one of the faults the message lists, or leave the header out';
  if (e.method === 'GET' || e.method === 'HEAD') return 'the server could not read the request: check the headers and the query';
  return 'send a JSON body with Content-Type: application/json';
}

/** Hints by API error code: what to do next. */
/** The command that lists the resources a path names by id, for a 404 on that path. */
const LISTED_BY: [RegExp, string][] = [
  [/^\/products\/[^/]+/, 'vouchers products list'],
  [/^\/orders\/[^/]+/, 'vouchers orders list'],
  [/^\/categories\/[^/]+/, 'vouchers categories list'],
  [/^\/transactions\/[^/]+/, 'vouchers transactions list'],
];

/** Collections of the API: a 404 on one of them says the base URL is wrong, not an id. */
const COLLECTIONS = /^\/(categories|products|orders|wallets|transactions|webhooks|payouts)\/?$/;

/** `/orders/{id}`, `/orders/{id}/vouchers`, `/orders/{id}/cancel`: the order id, encoded. */
const ORDER_PATH = /^\/orders\/([^/]+)(\/(?:vouchers|cancel))?\/?$/;

/**
 * A 404 on an order whose id is not the document's `ord_…`: the order commands send any id
 * as given (a server may issue `12345`), so the id may be a slip, a prefix typed in capitals,
 * or a reference typed where the id goes. Undefined for an `ord_…` id.
 */
function orderNotFoundHint(path: string, globals?: HintGlobals): string | undefined {
  const [, encoded, under] = ORDER_PATH.exec(path) ?? [];
  if (encoded === undefined) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
  if (id.startsWith('ord_')) return undefined;
  const list = suggestedCommand(globals, ['orders', 'list']);
  if (/^ord_/i.test(id))
    return `order ids are told apart by case, and those of the API document start with ord_ in lower case: ${suggestedCommand(globals, ['orders', under === '/vouchers' ? 'codes' : 'get', operand(`ord_${id.slice(4)}`)])}; ${list} shows yours`;
  return `check the id: ${list} shows yours (another partner's are not visible to you); if ${id} is the reference you gave the order, ${suggestedCommand(globals, ['orders', 'list', '--reference', id])} finds it`;
}

/**
 * A 404 on a path no endpoint has (`vouchers api GET /nope`): no id can be wrong there. Names
 * the nearest endpoint of the same method, its parameters filled with the segments typed
 * (`/order/ord_1` → `/orders/ord_1`), when it is a slip or two away.
 */
function unlistedPathHint(method: string | undefined, path: string, globals?: HintGlobals): string | undefined {
  if (method === undefined || path === '' || matchRoute(ROUTES as readonly Route[], method, path)) return undefined;
  const typed = path.replace(/\/+$/, '').split('/');
  const candidates = new Set<string>();
  for (const r of ROUTES as readonly Route[]) {
    const parts = r.path.split('/');
    if (r.method !== method.toUpperCase() || parts.length !== typed.length) continue;
    candidates.add(parts.map((part, i) => (/^\{\w+\}$/.test(part) ? typed[i]! : part)).join('/'));
  }
  const near = nearestKnown(typed.join('/'), [...candidates]);
  const meant = near ? `; did you mean ${suggestedCommand(globals, ['api', method.toUpperCase(), near])}?` : '';
  return `${method.toUpperCase()} ${path} is not an endpoint the API document lists${meant} (${docPath('contract.md')} lists them; if this server should offer it, quote the trace ID to support)`;
}

/** The path prefix the API document puts every endpoint under. */
const API_PREFIX = '/api/v1';

/**
 * A 404 or 405 from a base URL whose path does not end with /api/v1: every endpoint is then
 * asked for outside the API, and a server answers each one so. Said when the answer is not
 * the API's own envelope (a web server's, a proxy's) or is a 404 on a collection (a path no
 * id can make wrong): names the base URL, the one with /api/v1, and where to change it.
 */
function missingPrefixHint(e: ApiError, globals?: HintGlobals): string | undefined {
  if ((e.status !== 404 && e.status !== 405) || e.baseUrl === undefined) return undefined;
  if (!e.foreign && !(e.status === 404 && COLLECTIONS.test((e.path ?? '').split('?')[0]!))) return undefined;
  let url: URL;
  try {
    url = new URL(e.baseUrl);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  // Another version (/api/v2) is a choice, not a slip.
  if (/\/api\/v\d+$/i.test(path)) return undefined;
  const meant = `${url.origin}${/\/api$/i.test(path) ? `${path}/v1` : `${path}${API_PREFIX}`}`;
  const from = globals?.baseUrlFrom;
  const { baseUrl: _flag, ...others } = globals ?? {};
  const said = `the base URL ${e.baseUrl} does not end with ${API_PREFIX}, the prefix every endpoint of the API is under: did you mean ${meant}?`;
  const check = suggestedCommand({ ...others, baseUrl: meant }, ['doctor']);
  if (from?.source === 'flag' || (globals?.baseUrl !== undefined && from === undefined))
    return `${said} pass --base-url ${meant} (${check} checks it)`;
  if (from?.source === 'env') return `${said} set VOUCHERS_BASE_URL=${meant} (${check} checks it)`;
  const name = from?.profile ?? 'NAME';
  return `${said} change the profile's with ${suggestedCommand(undefined, ['profiles', 'set', operand(name), 'base_url', meant])}, then ${suggestedCommand(others, ['doctor'])} checks it`;
}

/** NOT_FOUND: the command that lists what exists, where the path names a resource one lists. */
function notFoundHint(e: ApiError, globals?: HintGlobals): string {
  const path = (e.path ?? '').split('?')[0]!;
  // A write to a collection answered 404 about something its body names (a product id):
  // the path exists, the thing named does not.
  const named = e.method !== 'GET' && e.method !== 'HEAD' && ((e.details?.length ?? 0) > 0 || /\(items[.[]/.test(e.message));
  if (named && /product/i.test(`${e.message} ${(e.details ?? []).map((d) => d.path).join(' ')}`))
    return `check the product id: ${suggestedCommand(globals, ['products', 'list'])} shows the ones you can order`;
  if (named) return 'check the ids the request names; the error says which';
  const unlisted = unlistedPathHint(e.method, path, globals);
  if (unlisted) return unlisted;
  if (COLLECTIONS.test(path))
    return `the server has no ${path} under this base URL: check the profile's base_url (the API's root, e.g. http://127.0.0.1:4010/api/v1): ${suggestedCommand(globals, ['profiles', 'show'])}; ${suggestedCommand(globals, ['doctor'])}`;
  const order = orderNotFoundHint(path, globals);
  if (order) return order;
  const list = LISTED_BY.find(([re]) => re.test(path))?.[1];
  if (list) return `check the id: ${list} shows the ones you can see (another partner's are not visible to you)`;
  return "check the id and the path; another partner's resources are not visible to you";
}

/**
 * A key already used with another body: whatever that first request made (an order, a
 * payout) exists. "Use a new key" would make a second one when the two requests meant the
 * same thing (a flag added on the retry): first find out what the key made.
 */
function reusedKeyHint(e: ApiError, globals?: HintGlobals): string {
  const path = (e.path ?? '').split('?')[0]!;
  const [what, find] = /\/payouts$/.test(path)
    ? ['payout', `${suggestedCommand(globals, ['transactions', 'list', '--type', 'PAYOUT'])}`]
    : /\/orders$/.test(path)
      ? ['order', `${suggestedCommand(globals, ['orders', 'list'])} (with --reference, by the reference it was given)`]
      : ['request', `${suggestedCommand(globals, ['log'])}`];
  return `this key was already used, with a different body: the ${what} that first request made may exist. Look before making another: ${find}; to see its result, repeat the first command exactly, with this key. A new key makes a new ${what}`;
}

/** A refused key or secret: look at the profile this run used, and let doctor check it. */
function credentialsHint(globals?: HintGlobals): string {
  const fromEnv = envCredentialsNote(globals);
  if (fromEnv) {
    const them = (globals?.envCredentials?.length ?? 0) > 1 ? 'them' : 'it';
    return `${fromEnv}: check ${them}, or unset ${them} to use the profile's; ${suggestedCommand(globals, ['doctor'])}`;
  }
  return `check the API key and secret of this profile: ${suggestedCommand(globals, ['profiles', 'show'])}; ${suggestedCommand(globals, ['doctor'])}`;
}

/**
 * `the API secret this run used came from VOUCHERS_API_SECRET in the environment`, when it
 * did: changing the profile would change nothing. Names the variables, never their values.
 */
function envCredentialsNote(globals?: HintGlobals, only?: string): string | undefined {
  const vars = (globals?.envCredentials ?? []).filter((v) => only === undefined || v === only);
  if (vars.length === 0) return undefined;
  const what = vars.length > 1 ? 'API key and secret' : /SECRET/.test(vars[0]!) ? 'API secret' : 'API key';
  return `the ${what} this run used came from ${vars.join(' and ')} in the environment, not from the profile`;
}

const HINTS: Record<string, string | ((e: ApiError, globals?: HintGlobals) => string)> = {
  AUTHENTICATION_FAILED: (_e, globals) => credentialsHint(globals),
  INVALID_SIGNATURE: (_e, globals) => {
    const fromEnv = envCredentialsNote(globals, 'VOUCHERS_API_SECRET');
    return `the signature did not match: check the API secret${fromEnv ? ` (${fromEnv})` : ''} and the profile's signing.path (full|relative); compare with vouchers sign`;
  },
  TIMESTAMP_OUT_OF_WINDOW: "this machine's clock is more than 5 minutes off the server's: sync it (vouchers doctor shows the skew)",
  IP_NOT_ALLOWED: "this machine's address is not on the key's IP allowlist: ask for it to be added",
  INSUFFICIENT_FUNDS: 'top up the wallet, or order less: vouchers wallets list',
  INSUFFICIENT_INVENTORY: 'no stock for this product right now: try another denomination or product later',
  PRODUCT_NOT_AVAILABLE: "this product's category is not open to your organisation: vouchers categories list",
  NOT_FOUND: notFoundHint,
  WEBHOOK_NOT_REGISTERED: (_e, globals) => `register one with ${suggestedCommand(globals, ['webhooks', 'register', '--url', 'URL'])}`,
  METHOD_NOT_ALLOWED: () => `this path does not take that method: see ${docPath('contract.md')} for the endpoints`,
  MALFORMED_REQUEST: malformedHint,
  IDEMPOTENCY_KEY_REQUIRED: 'this write needs an Idempotency-Key header: pass --idempotency-key with any new UUID (uuidgen makes one)',
  PAYLOAD_TOO_LARGE: 'the body is over 1 MiB: send less per request',
  UNSUPPORTED_MEDIA_TYPE: 'send the body as JSON with Content-Type: application/json; charset=utf-8 (vouchers api does this for you)',
  RATE_LIMIT_EXCEEDED: (e) =>
    `the API's rate limit for this key is used up: wait${e.retryAfter !== undefined ? ` ${e.retryAfter} s` : ''} and retry; to stay under it, lower the profile's client pace (limits.orders_per_minute, limits.general_per_hour) with vouchers profiles set`,
  IDEMPOTENCY_KEY_REUSED: reusedKeyHint,
  IDEMPOTENCY_KEY_IN_PROGRESS: 'the first request with this key is still running: retry in a moment with the same key',
  // A request without a body (GET, DELETE) is refused for its query or path parameters.
  VALIDATION_FAILED: (e) =>
    e.method === 'GET' || e.method === 'HEAD' || e.method === 'DELETE'
      ? 'fix the parameters named above and retry'
      : 'fix the fields named above and retry',
  ORDER_NOT_CANCELLABLE: (e, globals) => {
    const id = /\/orders\/([^/?]+)/.exec(e.path ?? '')?.[1];
    return `only PENDING orders can be cancelled: ${id ? `see its status with ${suggestedCommand(globals, ['orders', 'get', operand(decodeURIComponent(id))])}` : "see the order's status with vouchers orders get"}`;
  },
  SERVICE_UNAVAILABLE: (e) => retryLater(e, 'the service is unavailable'),
  INTERNAL_ERROR: (e) => retryLater(e, 'a server fault'),
};

/** A hint by status for codes this CLI does not know. */
function statusHint(e: ApiError, globals?: HintGlobals): string | undefined {
  if (e.status === 401 || e.status === 403) {
    const fromEnv = envCredentialsNote(globals);
    return `the server refused these credentials${fromEnv ? ` (${fromEnv})` : ''}: ${suggestedCommand(globals, ['doctor'])} checks them`;
  }
  if (e.status === 404) return notFoundHint(e, globals);
  if (e.status === 402) return 'the wallet may not hold enough for this: see the balances with vouchers wallets list';
  if (e.status === 429) return (HINTS.RATE_LIMIT_EXCEEDED as (e: ApiError) => string)(e);
  if (e.status >= 500) return retryLater(e, 'a server fault');
  return undefined;
}

export function hintFor(error: unknown, globals?: HintGlobals): string | undefined {
  const hint = rawHint(error, globals);
  return hint === undefined ? undefined : maskText(hint);
}

/** Commands a fixed hint names that act on the server this run chose. */
const SERVER_COMMAND = /\bvouchers (?=(?:doctor|wallets|categories|products|orders|transactions)\b)/g;

/**
 * A hint's commands with the run's --profile / --base-url, so that they reach the same server
 * (`vouchers doctor` after `--base-url U wallets list` would check the profile's URL). A
 * command already written with them (suggestedCommand) is left as it is.
 */
function onSameServer(hint: string, globals?: HintGlobals): string {
  if (!globals?.profile && !globals?.baseUrl) return hint;
  return hint.replace(SERVER_COMMAND, `${suggestedCommand(globals, [])} `);
}

function rawHint(error: unknown, globals?: HintGlobals): string | undefined {
  const hint = fixedHint(error, globals);
  return hint === undefined ? undefined : onSameServer(hint, globals);
}

function fixedHint(error: unknown, globals?: HintGlobals): string | undefined {
  const prefix = error instanceof ApiError ? missingPrefixHint(error, globals) : undefined;
  if (prefix) return prefix;
  if (error instanceof CliError && error.hint) return error.hint;
  if (error instanceof ApiError) {
    const h = HINTS[error.apiCode];
    return h === undefined ? statusHint(error, globals) : typeof h === 'string' ? h : h(error, globals);
  }
  return undefined;
}

/** The JSON envelope of an error: `error`, `trace_id`, and the fields the error carries (CliError.jsonFields). */
export function errorEnvelope(error: unknown, globals?: HintGlobals): Record<string, unknown> {
  const envelope = baseEnvelope(error, globals);
  return error instanceof CliError ? { ...envelope, ...error.jsonFields } : envelope;
}

function baseEnvelope(error: unknown, globals?: HintGlobals): Record<string, unknown> {
  if (error instanceof ApiError) {
    // The hint the text output gives, after the API's own fields: a script reads what to do next too.
    const hint = hintFor(error, globals);
    return {
      error: {
        name: error.name,
        code: error.apiCode,
        message: maskText(error.message),
        ...(error.details ? { details: error.details.map((d) => ({ ...d, message: maskText(d.message) })) } : {}),
        status: error.status,
        ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
        ...(hint ? { hint } : {}),
      },
      trace_id: error.traceId ?? null,
    };
  }
  if (error instanceof CliError) {
    // The hint as the text output gives it: its commands on the run's server (onSameServer).
    const hint = error.hint ? hintFor(error, globals) : undefined;
    return {
      error: {
        name: error.name,
        code: error.code,
        message: maskFor(error)(error.message),
        ...(hint ? { hint } : {}),
      },
      trace_id: traceOf(error) ?? null,
    };
  }
  const e = error instanceof Error ? error : new Error(String(error));
  return { error: { name: 'UnexpectedError', code: 'UNEXPECTED', message: maskText(e.message) }, trace_id: null };
}

/**
 * How an error's own text is masked: a usage error's also for the values it quotes back
 * (maskTypedValues), in its message and in the --debug stack, which repeats the message.
 */
function maskFor(error: unknown): (text: string) => string {
  return error instanceof CliError && error.kind === 'usage' ? maskTypedValues : maskText;
}

export function renderError(io: IO, error: unknown, options: RenderErrorOptions): void {
  if (options.json) {
    io.stderr.write(JSON.stringify(errorEnvelope(error, options.globals)) + '\n');
    if (options.debug && error instanceof Error && error.stack) io.stderr.write(maskFor(error)(error.stack) + '\n');
    return;
  }
  const c = new Chalk({ level: colorEnabled(io, 'stderr', !options.color) ? 1 : 0 });
  const lines: string[] = [];
  if (error instanceof ApiError) {
    // The server's words: characters a terminal acts on (an escape sequence, a carriage return
    // that would write over this block) are shown as \u escapes, as everywhere on a terminal.
    const said = (text: string) => escapeText(maskText(text));
    lines.push(`${c.red.bold('Error:')} ${said(error.message)}`);
    lines.push(`  ${c.dim('name')}      ${escapeText(error.name)} (${escapeText(error.apiCode)})`);
    lines.push(`  ${c.dim('status')}    HTTP ${error.status}${error.method ? ` on ${error.method} ${escapeText(error.path ?? '')}` : ''}`);
    // A message that names no field is shown on its own; a detail the message already says
    // word for word ("limit must be …" beside limit: "must be …") is not said twice.
    for (const d of error.details ?? []) {
      if (d.path && error.message.includes(`${d.path} ${d.message}`)) continue;
      lines.push(`  ${c.dim('field')}     ${d.path ? `${escapeText(d.path)}: ` : ''}${said(d.message)}`);
    }
    if (error.retryAfter !== undefined) lines.push(`  ${c.dim('retry')}     after ${error.retryAfter} s`);
    lines.push(`  ${c.dim('trace ID')}  ${error.traceId ? c.bold(error.traceId) : '(none returned)'}`);
  } else if (error instanceof CliError) {
    lines.push(`${c.red.bold('Error:')} ${maskFor(error)(error.message)}`);
    if (error.kind !== 'usage' || error.name !== 'UsageError') lines.push(`  ${c.dim('code')}      ${error.code}`);
    const trace = traceOf(error);
    if (trace) lines.push(`  ${c.dim('trace ID')}  ${c.bold(trace)}`);
  } else {
    const e = error instanceof Error ? error : new Error(String(error));
    lines.push(`${c.red.bold('Unexpected error:')} ${maskText(e.message)}`);
    if (!options.debug) lines.push(`  ${c.dim('run again with --debug for the stack trace')}`);
  }
  const hint = hintFor(error, options.globals);
  if (hint) lines.push(`  ${c.cyan('hint')}      ${hint}`);
  if (options.debug && error instanceof Error && error.stack) lines.push('', c.dim(maskFor(error)(error.stack)));
  // On a terminal, wrapped to its width under the value column (as shown: made ASCII first
  // where only ASCII is shown, … being three cells then); piped, each line whole.
  const text = lines.join('\n') + '\n';
  const shown = asciiOnly(io) ? asciiText(text) : text;
  io.stderr.write(io.stderrIsTTY ? wrapNote(shown, stderrColumns(io)) : shown);
}
