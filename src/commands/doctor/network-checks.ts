/**
 * Checks that talk to the server through the one request pipeline: reachable, credentials
 * accepted, IP allowlist, request signing, clock skew (from the `Date` header).
 */
import { ENV, type ResolvedProfile } from '../../core/config/types.js';
import { CliError, NetworkError } from '../../core/errors/index.js';
import { foreignError } from '../../core/http/api-error.js';
import { sandboxProfileOf, sandboxStartCommand } from '../../core/net/sandbox-command.js';
import type { ApiClient } from '../../core/http/types.js';
import type { Clock } from '../../core/time/clock.js';
import { fail, ok, skip, traced, warn, type CheckResult } from './result.js';

/**
 * An order id that cannot exist: a signed cancel of it answers 404 once the signature is
 * accepted, or before it is checked (a server that routes first): signingCheck tells which.
 */
export const PROBE_ORDER_ID = 'ord_00000000000000000000000000';
export const SKEW_WARN_SECONDS = 60;
export const SKEW_FAIL_SECONDS = 300;
const PROBE_TIMEOUT_MS = 10_000;

interface Answer {
  status: number;
  code: string | undefined;
  /** The server's message of a refusal, in the API's envelope or another shape. */
  message?: string;
  headers: Record<string, string>;
  traceId: string | undefined;
  durationMs: number;
  /** Local time half way through the request. */
  localMidMs: number;
  /** What the body is: JSON, empty, or something else (a web page: its content type). */
  body: 'json' | 'empty' | { other: string };
  /** The JSON body holds a list somewhere at its top (`[…]`, `{"data": […]}`, `{"items": […]}`). */
  holdsList: boolean;
}

async function probe(
  client: ApiClient,
  clock: Clock,
  profile: ResolvedProfile,
  method: string,
  path: string,
  signal: AbortSignal,
  wrongSignature = false,
): Promise<Answer> {
  const t0 = clock.now();
  const res = await client.request({
    method,
    path,
    ...(wrongSignature ? { wrongSignature } : {}),
    raw: true,
    throwHttpErrors: false,
    maxRetries: 0,
    probe: true,
    timeoutMs: Math.min(profile.timeout_ms, PROBE_TIMEOUT_MS),
    signal,
  });
  const t1 = clock.now();
  const envelope = res.data as { error?: { code?: unknown } } | undefined;
  // A refusal in another shape than the envelope (`{"error": "invalid_signature"}`, problem details) is read too.
  const said = res.status >= 400 ? foreignError(res.text, res.data) : {};
  const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : said.code;
  const data: unknown = res.data;
  const body: Answer['body'] =
    data !== undefined ? 'json' : res.text.trim() === '' ? 'empty' : { other: (res.headers['content-type'] ?? '').split(';')[0]!.trim() };
  const values = data !== null && typeof data === 'object' ? Object.values(data) : [];
  const holdsList =
    Array.isArray(data) ||
    values.some((v) => Array.isArray(v) || (v !== null && typeof v === 'object' && Object.values(v).some(Array.isArray)));
  return {
    status: res.status,
    code,
    ...(said.message !== undefined ? { message: said.message } : {}),
    headers: res.headers,
    traceId: res.traceId,
    durationMs: res.durationMs,
    localMidMs: (t0 + t1) / 2,
    body,
    holdsList,
  };
}

/** A 2xx that cannot be the API's answer to GET /categories (a web page, a portal): what it is, else undefined. */
function notTheApi(a: Answer): string | undefined {
  if (!is2xx(a.status) || a.body === 'json' || a.body === 'empty') return undefined;
  return `${a.body.other || 'a body'} that is not JSON`;
}

/**
 * An answer as a line says it: `HTTP 401 INVALID_SIGNATURE (trace …)`; `within` parentheses
 * already, `HTTP 401 INVALID_SIGNATURE, trace …` (never `(… (trace …))`).
 */
function describe(a: Answer, within = false): string {
  const trace = a.traceId ? (within ? `, trace ${a.traceId}` : ` (trace ${a.traceId})`) : '';
  return `HTTP ${a.status}${a.code ? ` ${a.code}` : ''}${trace}`;
}

/** describe() with what the body was when it was not JSON: `HTTP 502 with an HTML page (trace …)`, a proxy's error page. */
function describeWithBody(a: Answer): string {
  const type = a.body === 'json' ? undefined : a.body === 'empty' ? 'empty' : a.body.other;
  const body =
    type === undefined
      ? ''
      : type === 'empty'
        ? ' with an empty body'
        : /html/i.test(type)
          ? ' with an HTML page'
          : ` with ${type || 'a body'} that is not JSON`;
  return `HTTP ${a.status}${a.code ? ` ${a.code}` : ''}${body}${a.traceId ? ` (trace ${a.traceId})` : ''}`;
}

const is2xx = (s: number) => s >= 200 && s < 300;

/** ` (trace ID)` of a request that got no answer, as describe() gives it for an answer. */
function failedTrace(e: Error): string {
  return e instanceof NetworkError && e.traceId ? ` (trace ${e.traceId})` : '';
}

function reachableCheck(profile: ResolvedProfile, a: Answer | Error): CheckResult {
  const label = 'Server reachable';
  if (a instanceof Error) {
    const start = profile.base_url ? sandboxStartCommand(profile.base_url, sandboxProfileOf(profile)) : undefined;
    return fail(
      'reachable',
      label,
      `GET ${profile.base_url}/categories failed: ${a.message}${failedTrace(a)}`,
      `check the base URL and your network (proxy, VPN, firewall)${start ? `; for the local sandbox run ${start}` : ''}`,
      'network',
    );
  }
  if (a.status >= 500) {
    return fail(
      'reachable',
      label,
      `the server answered ${describeWithBody(a)}`,
      `the service${a.body === 'json' ? '' : ' (or a proxy in front of it)'} is failing or unavailable: try again later${a.traceId ? ', and quote the trace ID to support' : ''}`,
      'network',
    );
  }
  const other = notTheApi(a);
  if (other)
    return fail(
      'reachable',
      label,
      `GET /categories answered ${describe(a)} with ${other}: that is not the API answering (a web site, a proxy or a captive portal?)`,
      `check that the base URL is the API's root, e.g. https://api.example.com/api/v1: vouchers profiles show${profile.exists ? ` ${profile.name}` : ''}`,
      'usage',
    );
  if (is2xx(a.status) && a.body === 'empty')
    return warn(
      'reachable',
      label,
      `GET /categories answered ${describe(a)} with an empty body, where the API lists the categories: is the base URL the API's root?`,
    );
  if (is2xx(a.status) && !a.holdsList)
    return warn(
      'reachable',
      label,
      `GET /categories answered ${describe(a)} with JSON that holds no list, where the API lists the categories: is the base URL the API's root?`,
    );
  return ok('reachable', label, `GET /categories answered in ${a.durationMs} ms`);
}

/** What to check after a 401: the profile's key and secret, or the variables that override them. */
function credentialsFix(profile: ResolvedProfile): string {
  const fromEnv = [profile.sources.api_key === 'env' && ENV.apiKey, profile.sources.api_secret === 'env' && ENV.apiSecret].filter(
    Boolean,
  ) as string[];
  const show = `vouchers profiles show${profile.exists ? ` ${profile.name}` : ''}`;
  const where =
    fromEnv.length === 0
      ? `check the API key and secret: ${show}`
      : profile.exists
        ? `check ${fromEnv.join(' and ')}, which this run used instead of the profile's (unset ${fromEnv.length > 1 ? 'them' : 'it'} to use the profile's; see ${show})`
        : `check ${fromEnv.join(' and ')}`;
  // With new credentials from the provider, the commands that put them in the profile.
  const replace = profile.exists
    ? `; with new ones, vouchers profiles set ${profile.name} api_key KEY and vouchers profiles set ${profile.name} api_secret --stdin`
    : '';
  return `${where}; keys can be revoked or rotated, ask for new ones if needed${replace}`;
}

function authenticationCheck(profile: ResolvedProfile, a: Answer): CheckResult {
  const label = 'Authentication';
  if (is2xx(a.status)) return ok('authentication', label, 'API key and secret accepted');
  if (a.status === 401) {
    return fail('authentication', label, `rejected: ${describe(a)}`, credentialsFix(profile), 'auth');
  }
  if (a.status === 403 && a.code === 'IP_NOT_ALLOWED')
    return skip('authentication', label, 'cannot tell: the request was refused by the IP allowlist first');
  if (a.status === 403)
    return fail(
      'authentication',
      label,
      `refused: ${describe(a)}`,
      'this key is not allowed to use the catalog: contact your account manager',
      'auth',
    );
  if (a.status === 404) {
    return fail(
      'authentication',
      label,
      `GET /categories answered ${describe(a)}`,
      `the base URL ${profile.base_url} probably lacks or doubles the /api/v1 prefix`,
      'usage',
    );
  }
  if (a.status === 429) return rateLimited('authentication', label, a);
  return warn('authentication', label, `cannot tell: GET /categories answered ${describe(a)}`);
}

/**
 * A check the server answered with 429: nothing about the setup is proven, and a CI job must
 * not read that as healthy. A failure with the rate-limit exit code, saying the Retry-After
 * the server sent.
 */
function rateLimited(check: string, label: string, a: Answer): CheckResult {
  const after = a.headers['retry-after']?.trim();
  const seconds = after && /^\d+$/.test(after) ? `${after} s` : after;
  return fail(
    check,
    label,
    `cannot tell: rate limited (${describe(a, true)}${seconds ? `, Retry-After ${seconds}` : ', no Retry-After'})`,
    `wait ${seconds ?? 'a minute'} and run vouchers doctor again; if it lasts, another client is using up this key's rate limit`,
    'rate_limited',
  );
}

function ipCheck(a: Answer): CheckResult {
  const label = 'IP allowlist';
  if (a.status === 403 && a.code === 'IP_NOT_ALLOWED') {
    return fail(
      'ip_allowlist',
      label,
      `this machine's address is not on the key's allowlist (${describe(a, true)})`,
      "ask your account manager to add this machine's public IP address (or CIDR) to the key's allowlist",
      'auth',
    );
  }
  if (is2xx(a.status)) return ok('ip_allowlist', label, 'this address is allowed');
  return skip('ip_allowlist', label, `cannot tell from ${describe(a)}`);
}

/**
 * Whether a 401 or 403 says the signature was refused: INVALID_SIGNATURE, or another code or
 * message naming the signature (`SIGNATURE_MISMATCH`, `{"message": "Invalid signature"}`);
 * a stale timestamp is told apart (TIMESTAMP_OUT_OF_WINDOW).
 */
function namesBadSignature(a: Answer): boolean {
  if (a.code === 'INVALID_SIGNATURE') return true;
  return a.code !== 'TIMESTAMP_OUT_OF_WINDOW' && /signature/i.test(`${a.code ?? ''} ${a.message ?? ''}`);
}

/**
 * What the signed probe proved. A 2xx or 409 came past authentication: the signature was
 * accepted. A 404 proves it only when the same request signed wrongly (`control`) is refused
 * with a 401 or 403: a server that routes before it authenticates answers both with 404,
 * and then signing is not proven (a warning, not a pass).
 */
function signingCheck(profile: ResolvedProfile, a: Answer | Error, control?: Answer | Error): CheckResult {
  const label = 'Request signing';
  const other = profile.signing_path === 'full' ? 'relative' : 'full';
  const setOther = profile.exists ? `vouchers profiles set ${profile.name} signing.path ${other}` : `set VOUCHERS_SIGNING_PATH=${other}`;
  if (a instanceof Error) return skip('signing', label, `cannot tell: the signed request failed: ${a.message}${failedTrace(a)}`);
  if (a.status === 409 || is2xx(a.status)) {
    return ok('signing', label, `signed POST accepted (signing.path ${profile.signing_path})`);
  }
  if (a.status === 404) {
    if (control !== undefined && !(control instanceof Error) && (control.status === 401 || control.status === 403)) {
      return ok(
        'signing',
        label,
        `signed POST accepted (signing.path ${profile.signing_path}): it reached ${describe(a)} where the same request signed wrongly was refused (${describe(control, true)})`,
      );
    }
    return warn(
      'signing',
      label,
      `not proven: the signed probe POST /orders/${PROBE_ORDER_ID}/cancel answered ${describe(a)}, ${
        control === undefined || control instanceof Error
          ? 'and the same request signed wrongly got no answer to compare'
          : control.status === 404
            ? `as did the same request signed wrongly (${describe(control, true)}): this server answers it before checking the signature`
            : `and the same request signed wrongly got ${describe(control)}, which tells neither way`
      }`,
      control !== undefined && !(control instanceof Error) && control.status === 429
        ? 'rate limited: wait a minute and run vouchers doctor again'
        : 'prove it with a signed write on a sandbox profile, e.g. vouchers orders create --product … --denomination …',
    );
  }
  if (a.status === 429) return rateLimited('signing', label, a);
  if ((a.status === 401 || a.status === 403) && namesBadSignature(a)) {
    return fail(
      'signing',
      label,
      `signature rejected with signing.path ${profile.signing_path} (${describe(a, true)})`,
      `check the API secret; if it is right, the server may sign the other path variant: ${setOther}`,
      'auth',
    );
  }
  if (a.status === 401 && a.code === 'TIMESTAMP_OUT_OF_WINDOW') {
    return fail(
      'signing',
      label,
      `timestamp rejected (${describe(a, true)}): this machine's clock is more than 5 minutes off`,
      'sync the clock (enable NTP / automatic time)',
      'auth',
    );
  }
  if (a.status === 401) return fail('signing', label, `rejected: ${describe(a)}`, credentialsFix(profile), 'auth');
  return warn(
    'signing',
    label,
    `cannot tell: the signed probe POST /orders/${PROBE_ORDER_ID}/cancel answered ${describe(a)}`,
    'try a signed request, e.g. an order in the sandbox',
  );
}

/**
 * The skew between this machine's clock and the server's Date header. Beyond 300 s a server
 * that checks the signature's timestamp refuses it: a failure, unless the signed probe was
 * accepted all the same (`signedAccepted`), which says what the server's clock is worth to
 * it; then a warning.
 */
function clockCheck(answers: Answer[], signedAccepted = false): CheckResult {
  const label = 'Clock skew';
  const withDate = answers.find((a) => a.headers.date !== undefined && !Number.isNaN(Date.parse(a.headers.date)));
  if (!withDate) {
    return answers.length === 0
      ? skip('clock_skew', label, 'not checked: no answer from the server')
      : warn('clock_skew', label, 'cannot tell: the server sent no Date header');
  }
  // Date has whole seconds: the server's time was somewhere in [Date, Date + 1 s).
  const serverMs = Date.parse(withDate.headers.date!) + 500;
  const skewS = Math.round((withDate.localMidMs - serverMs) / 1000);
  const abs = Math.abs(skewS);
  const detail =
    abs <= 1 ? 'in sync with the server (within 1 s)' : `this machine is ${abs} s ${skewS > 0 ? 'ahead of' : 'behind'} the server`;
  if (abs > SKEW_FAIL_SECONDS && signedAccepted)
    return warn(
      'clock_skew',
      label,
      `the server's clock is ${abs} s ${skewS > 0 ? 'behind' : 'ahead of'} this machine's, and it accepted the signed POST all the same: it does not hold the signature's timestamp to its own clock`,
      `if this machine's clock is right (NTP), the server's is off by ${abs} s; a server that checks the timestamp rejects signatures beyond ${SKEW_FAIL_SECONDS} s`,
    );
  if (abs > SKEW_FAIL_SECONDS)
    return fail(
      'clock_skew',
      label,
      `${detail}; signed requests are rejected beyond ${SKEW_FAIL_SECONDS} s`,
      'sync the clock (enable NTP / automatic time)',
      'auth',
    );
  if (abs > SKEW_WARN_SECONDS)
    return warn(
      'clock_skew',
      label,
      `${detail}; signatures stop working beyond ${SKEW_FAIL_SECONDS} s`,
      'sync the clock (enable NTP / automatic time)',
    );
  return ok('clock_skew', label, detail);
}

/** The trace ID of an answer, or of a request that got none (the `traceparent` it sent). */
function traceOf(a: Answer | Error): string | undefined {
  return a instanceof NetworkError ? a.traceId : a instanceof Error ? undefined : a.traceId;
}

/** Run the network checks in order; later ones are skipped when an earlier one makes them meaningless. */
export async function networkChecks(
  client: ApiClient,
  clock: Clock,
  profile: ResolvedProfile,
  signal: AbortSignal,
): Promise<CheckResult[]> {
  const rethrowInterrupt = (e: unknown): Error => {
    if (e instanceof CliError && e.kind === 'interrupted') throw e;
    return e instanceof Error ? e : new Error(String(e));
  };
  const answers: Answer[] = [];
  const first = await probe(client, clock, profile, 'GET', '/categories', signal).catch(rethrowInterrupt);
  const results: CheckResult[] = [traced(reachableCheck(profile, first), traceOf(first))];
  if (first instanceof Error || first.status >= 500 || notTheApi(first)) {
    const why =
      first instanceof Error
        ? 'the server did not answer'
        : first.status >= 500
          ? `the server answered ${describeWithBody(first)}`
          : 'what answers is not the API';
    results.push(
      skip('authentication', 'Authentication', `not checked: ${why}`),
      skip('ip_allowlist', 'IP allowlist', `not checked: ${why}`),
      skip('signing', 'Request signing', `not checked: ${why}`),
    );
    if (!(first instanceof Error)) answers.push(first);
    results.push(clockCheck(answers));
    return results;
  }
  answers.push(first);
  results.push(traced(authenticationCheck(profile, first), first.traceId), traced(ipCheck(first), first.traceId));
  if (is2xx(first.status)) {
    const path = `/orders/${PROBE_ORDER_ID}/cancel`;
    const signed = await probe(client, clock, profile, 'POST', path, signal).catch(rethrowInterrupt);
    if (!(signed instanceof Error)) answers.push(signed);
    // A 404 may come before the signature is checked: the same request signed wrongly tells.
    const control =
      !(signed instanceof Error) && signed.status === 404
        ? await probe(client, clock, profile, 'POST', path, signal, true).catch(rethrowInterrupt)
        : undefined;
    const signing = signingCheck(profile, signed, control);
    results.push(traced(signing, traceOf(signed)), clockCheck(answers, signing.level === 'ok'));
    return results;
  }
  results.push(skip('signing', 'Request signing', 'not checked: authentication did not succeed'), clockCheck(answers));
  return results;
}
