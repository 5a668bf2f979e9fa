/** The API base URL: an absolute http(s) URL that already includes `/api/v1`. */
import { ConfigError } from '../errors/index.js';
import { isLoopbackHost } from '../net/loopback.js';

/**
 * The base URL meant by a value given without its scheme (`localhost:4010/api/v1`,
 * `partner.example.com/api/v1`): http:// before a loopback host, https:// before any other,
 * and /api/v1 completed as doctor completes it. Undefined when the value has a scheme, or
 * does not read as a host with a scheme put in front.
 */
export function baseUrlWithScheme(value: string): string | undefined {
  const text = value.trim();
  if (text.includes('://') || !/^[a-z0-9[]/i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${text}`);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.search || url.hash) return undefined;
  const scheme = isLoopbackHost(url.hostname) ? 'http' : 'https';
  const path = url.pathname.replace(/\/+$/, '');
  const completed = path.endsWith('/api/v1') ? path : path.replace(/(?:\/api)?(?:\/v\d+)?$/, '/api/v1');
  return `${scheme}://${url.host}${completed}`;
}

/** The reason `value` is not a usable base URL, or undefined when it is. */
export function baseUrlProblem(value: string): string | undefined {
  if (baseUrlWithScheme(value)) return 'has no http:// or https:// in front';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `uses ${url.protocol.replace(/:$/, '')}, not http or https`;
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.search || url.hash) return 'must not carry a query string or fragment';
  return undefined;
}

/** The URL for messages: a password in it is replaced by `***` (it would land in terminals and CI logs). */
export function redactUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:?#]*):[^/@?#]*@/i, '$1:***@');
}

/** Query parameters whose value is a credential (`?token=…`, `?api_key=…`, `?sig=…`). */
const CREDENTIAL_PARAM =
  /^(.*[-_])?(token|key|secret|password|passwd|pass|pwd|sig|signature|auth|authorization|credential|credentials|code)$/i;

/**
 * An app's URL for messages (`--forward-to`): a password in it, and the value of a query
 * parameter named for a credential, replaced by `***`.
 */
export function redactAppUrl(value: string): string {
  const bare = redactUrl(value);
  const q = bare.indexOf('?');
  if (q < 0) return bare;
  const [query, hash] = bare.slice(q + 1).split(/#(.*)/s, 2) as [string, string | undefined];
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // a name that does not decode is judged as written
      }
      return CREDENTIAL_PARAM.test(name) ? `${pair.slice(0, eq)}=***` : pair;
    })
    .join('&');
  return `${bare.slice(0, q)}?${redacted}${hash !== undefined ? `#${hash}` : ''}`;
}

/**
 * An app's URL as a suggested command may repeat it (`events replay --forward-to`), or
 * undefined when it carries a credential: the command then leaves it out, and replay takes
 * the URL the events were last forwarded to from the forward log.
 */
export function appUrlForCommand(value: string): string | undefined {
  return redactAppUrl(value) === value ? value : undefined;
}

/** Normalise (no trailing slash) or throw a ConfigError naming where the value came from. */
export function validateBaseUrl(value: string, from: string): string {
  const problem = baseUrlProblem(value);
  if (problem) {
    const meant = baseUrlWithScheme(value);
    throw new ConfigError(
      `the base URL ${JSON.stringify(redactUrl(value))} (from ${from}) ${problem}`,
      meant
        ? `did you mean ${meant}? give the full API address, its scheme and /api/v1 included`
        : 'give the full API address including /api/v1, e.g. https://sandbox.example.com/api/v1',
    );
  }
  return value.replace(/\/+$/, '');
}
