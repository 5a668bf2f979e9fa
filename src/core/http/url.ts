/** Join a base URL that carries a path prefix (`http://h/api/v1`) with a relative path and a query. */
import { redactUrl } from '../config/base-url.js';
import { ConfigError } from '../errors/index.js';

export type QueryValue = string | number | boolean | undefined;

export interface BaseUrl {
  /** `http://host:port` */
  origin: string;
  /** `/api/v1` (no trailing slash; '' at the root). */
  basePath: string;
}

export function parseBaseUrl(base: string): BaseUrl {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new ConfigError(
      `base URL ${JSON.stringify(redactUrl(base))} is not a URL`,
      'use the full address including /api/v1, e.g. https://api.example.com/api/v1',
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(
      `base URL ${JSON.stringify(redactUrl(base))} must start with http:// or https://`,
      'e.g. https://api.example.com/api/v1',
    );
  }
  if (u.search || u.hash)
    throw new ConfigError(
      `base URL ${JSON.stringify(redactUrl(base))} must not carry a query or fragment`,
      'e.g. https://api.example.com/api/v1',
    );
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/** Encode a query object (undefined values are left out; order kept). */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s;
}

/** A query pair's name as a server reads it (`a+b=1` → `a b`; undecodable: as written). */
function pairName(pair: string): string {
  const name = pair.split('=')[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * The request target as sent: base path + path + query. `path` may carry its own query
 * string; `query` entries are appended to it, each replacing a parameter of the same name
 * there, so that no parameter is sent twice (a server reads one of them, or refuses both).
 */
export function requestTarget(base: BaseUrl, path: string, query?: Record<string, QueryValue>): { target: string; path: string } {
  const rel = path.startsWith('/') ? path : '/' + path;
  const q = rel.indexOf('?');
  if (q < 0 && query === undefined) return { target: base.basePath + rel, path: rel };
  const pathOnly = q >= 0 ? rel.slice(0, q) : rel;
  const given = new Set(Object.entries(query ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [k])));
  let ownQuery = q >= 0 ? rel.slice(q + 1) : '';
  if (given.size > 0)
    ownQuery = ownQuery
      .split('&')
      .filter((pair) => !given.has(pairName(pair)))
      .join('&');
  const extra = encodeQuery(query);
  const search = [ownQuery, extra].filter(Boolean).join('&');
  return { target: base.basePath + pathOnly + (search ? '?' + search : ''), path: pathOnly };
}
