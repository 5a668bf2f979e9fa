/**
 * How a list answer says where its next page is. The API document leaves the pagination
 * names open ("not shown"); ours is `has_more` + `next_cursor` at the top of the body. A
 * server may instead say it under other common names, which are followed too:
 * - a flag `has_more`/`hasMore`/`has_next`/`has_next_page`/`hasNextPage`;
 * - a cursor `next_cursor`/`nextCursor`/`next`/`next_page_token`/`nextPageToken`/`next_token`,
 *   at the top or in `pagination`, `meta`, `paging`, `page_info`/`pageInfo`, `links`/`_links`
 *   (a bare cursor is sent as `cursor`, the way next_cursor is; a URL or path is followed as
 *   given, the same way as a Link header's: see `PageAt`);
 * - a `Link: <…>; rel="next"` header, or page numbers (`next_page`, `page` below `pages`).
 * A list that says more follows but names no way to ask for it is `unfollowable`.
 * `nextPageRequest` turns what an answer says into the next request, and refuses a page
 * named twice (a loop).
 */
import { CliError } from '../errors/index.js';
import { isRecord } from '../is-record.js';
import { CURRENCY_KEY } from './by-currency.js';
import type { ListBody } from './validate.js';

type Rec = Record<string, unknown>;

/** Where a list's next page is, as read from its answer. */
export interface Paging {
  /** The answer says anything about paging (a flag, a cursor field even null, a link, page numbers). */
  paginated: boolean;
  /** The cursor of the next page, sent as `cursor`. */
  cursor?: string;
  /** The next page's query (from a URL, a Link header or page numbers), sent over the filters. */
  query?: Record<string, string>;
  /**
   * The next page's path relative to the base URL, when a next URL or path names one under
   * it (read only with a `PageAt`); its query, if any, is in `query`.
   */
  path?: string;
  /** What was followed, for a notice (`"next"`, `pagination.next_cursor`, `the Link header`); undefined for our own next_cursor. */
  via?: string;
  /** The answer says more follows, but names no cursor, link or page to ask for it. */
  unfollowable: boolean;
}

const FLAGS = ['has_more', 'hasMore', 'has_next', 'has_next_page', 'hasNextPage'];
const CURSORS = ['next_cursor', 'nextCursor', 'next', 'next_page_token', 'nextPageToken', 'next_token'];
const HOLDERS = ['pagination', 'meta', 'paging', 'page_info', 'pageInfo', 'links', '_links'];
/** Wrappers around a wrapper a list is looked for in (listWrapper). */
const MAX_WRAPPERS = 3;

/**
 * The field of a list's answer that wraps the list (`{"data": {"products": […]}}`,
 * `{"result": {"orders": […], "meta": {…}}}`): `data`, else the one object of the body that
 * holds exactly one list, a paging holder or a currency's record (by-currency.ts) aside; or
 * that holds such a wrapper itself (`{"response": {"result": {"transactions": […]}}}`), a
 * few levels down at most. Undefined when the body holds a list itself, or no single wrapper
 * is found (two candidates are never guessed between).
 */
export function listWrapper(body: Rec, depth = 0): string | undefined {
  if (Object.values(body).some(Array.isArray)) return undefined;
  const holdsOneList = (k: string) => {
    const inner = body[k];
    return (
      isRecord(inner) &&
      (Object.values(inner).filter(Array.isArray).length === 1 || (depth < MAX_WRAPPERS && listWrapper(inner, depth + 1) !== undefined))
    );
  };
  if (holdsOneList('data')) return 'data';
  const found = Object.keys(body).filter((k) => !HOLDERS.includes(k) && !CURRENCY_KEY.test(k) && holdsOneList(k));
  return found.length === 1 ? found[0] : undefined;
}

/** The wrappers a list sits in (listWrapper, followed down), outermost first, each with its dotted path (`response.result.`). */
function wrappersOf(body: Rec): [string, Rec][] {
  const chain: [string, Rec][] = [];
  for (let at = body, key = listWrapper(body), path = ''; key !== undefined; key = listWrapper(at)) {
    at = at[key] as Rec;
    path += `${key}.`;
    chain.push([path, at]);
  }
  return chain;
}

/**
 * Where the list was asked for, so that a next URL or path can be followed: `basePath`
 * is the base URL's path (`/api/v1`, '' at the root), `path` the list's path relative to it.
 * A next link is resolved against the list's URL (a relative one too); its path is taken when
 * it lies under the base path, and only its query otherwise. Its host is never used: every
 * request goes to the configured base URL, whatever host a server names in its links (behind
 * a proxy it often names its own).
 */
export interface PageAt {
  basePath: string;
  path: string;
}

type LinkTarget = { query?: Record<string, string>; path?: string };

/** The query, and with `at` the path, of a next URL or path (`/api/v1/x?cursor=p2`, `https://h/x?page=2`, `?after=a`). */
function linkTarget(href: string, at: PageAt | undefined): LinkTarget | undefined {
  let u: URL;
  try {
    u = new URL(href, `http://x${at ? at.basePath + at.path : '/'}`);
  } catch {
    return undefined;
  }
  const query = Object.fromEntries(u.searchParams);
  const target: LinkTarget = Object.keys(query).length > 0 ? { query } : {};
  if (at && (at.basePath === '' || u.pathname.startsWith(`${at.basePath}/`))) target.path = u.pathname.slice(at.basePath.length);
  return target.query || target.path ? target : undefined;
}

/**
 * The path relative to the base URL that a link names (a `Location` header's URL or path,
 * resolved as a next link is), when it lies under the base path; its host and query are
 * never used, as for next links. Undefined for a link outside the base path.
 */
export function linkedPath(href: string, at: PageAt): string | undefined {
  // A plain path (`/api/v1/orders/ord_1`: no dot segment, escape, query or fragment) is the
  // path the URL parser would resolve it to: a Location header on every order placed.
  if (PLAIN_PATH.test(href)) {
    if (at.basePath === '') return href;
    return href.startsWith(`${at.basePath}/`) ? href.slice(at.basePath.length) : undefined;
  }
  return linkTarget(href, at)?.path;
}

const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-]+)+$/;

/** A `Link` header's rel="next" URL (RFC 8288), or undefined. */
function linkNext(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!m || !/;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2]!)) continue;
    return m[1]!;
  }
  return undefined;
}

const pageNumber = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/**
 * A list that says nothing of `has_more`/`next_cursor` may still page otherwise: the next
 * page's query from a Link header, or from page numbers in the body. Undefined when neither
 * says a next page exists.
 */
export function otherNextPage(body: unknown, headers: Record<string, string>, at?: PageAt): (LinkTarget & { via: string }) | undefined {
  const linked = linkNext(headers.link);
  const target = linked === undefined ? undefined : linkTarget(linked, at);
  if (target) return { ...target, via: 'the Link header' };
  if (!isRecord(body)) return undefined;
  // The page numbers in the body, or in the list's wrappers (`{"result": {"items": […], "meta": {"page": 1}}}`).
  for (const at of [body, ...wrappersOf(body).map(([, w]) => w)]) {
    const holder = isRecord(at.meta) ? at.meta : isRecord(at.pagination) ? at.pagination : at;
    const next = pageNumber(holder.next_page);
    if (next !== undefined) return { query: { page: String(next) }, via: 'page numbers' };
    const page = pageNumber(holder.page ?? holder.current_page);
    const last = pageNumber(holder.pages ?? holder.total_pages ?? holder.last_page ?? holder.page_count);
    if (page !== undefined && last !== undefined && page < last) return { query: { page: String(page + 1) }, via: 'page numbers' };
  }
  return undefined;
}

/**
 * A cursor field's value: a bare cursor (a string, or a number such as an offset, sent as its
 * digits), or a URL/path (a string, or `{"href": …}`) naming the next page.
 */
function readNext(v: unknown, at: PageAt | undefined): (LinkTarget & { cursor?: string; link: boolean }) | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? { cursor: String(v), link: false } : undefined;
  const href = isRecord(v) && typeof v.href === 'string' ? v.href : v;
  if (typeof href !== 'string' || href.trim() === '') return undefined;
  if (/^(https?:\/\/|\/|\?)/i.test(href)) return { ...linkTarget(href, at), link: true };
  return { cursor: href, link: false };
}

/**
 * Where the page after this answer is (see the file's comment). `headers` (the answer's) add
 * a Link header; without them only the body is read. With `at`, a next link's path is
 * followed too (PageAt); without it only its query.
 */
export function pagingOf(body: unknown, headers: Record<string, string> = {}, at?: PageAt): Paging {
  if (!isRecord(body)) {
    const other = otherNextPage(body, headers, at);
    if (other) return { paginated: true, ...other, unfollowable: false };
    const linked = linkNext(headers.link) !== undefined;
    return { paginated: linked, unfollowable: linked };
  }
  const holders: [string, Rec][] = [['', body]];
  for (const h of HOLDERS) if (isRecord(body[h])) holders.push([`${h}.`, body[h]]);
  // The list's wrappers, and the holders inside each (`{"data": {"items": […], "pagination": {…}}}`).
  if (isRecord(body.data) && listWrapper(body) !== 'data') holders.push(['data.', body.data]);
  for (const [path, at] of wrappersOf(body)) {
    holders.push([path, at]);
    for (const h of HOLDERS) if (isRecord(at[h])) holders.push([`${path}${h}.`, at[h]]);
  }
  let flag: boolean | undefined;
  let paginated = false;
  let found: { cursor?: string; query?: Record<string, string>; path?: string; via?: string } | undefined;
  const followable = () => found?.cursor !== undefined || found?.query !== undefined || found?.path !== undefined;
  for (const [prefix, h] of holders) {
    for (const k of FLAGS) {
      if (!(k in h)) continue;
      paginated = true;
      if (flag === undefined && typeof h[k] === 'boolean') flag = h[k];
    }
    for (const k of CURSORS) {
      if (!(k in h)) continue;
      paginated = true;
      const next = followable() ? undefined : readNext(h[k], at);
      if (!next) continue;
      const ours = prefix === '' && k === 'next_cursor';
      const { link, ...target } = next;
      found = {
        ...target,
        via: ours ? undefined : `"${prefix}${k}"${link ? ' (a URL: its path and query, on the base URL)' : ' (sent as cursor)'}`,
      };
    }
  }
  const linked = linkNext(headers.link) !== undefined;
  if (!followable()) {
    const other = otherNextPage(body, headers, at);
    if (other) found = other;
    else if (linked) found = {};
  }
  if (found?.query || found?.path || linked) paginated = true;
  const way = followable();
  // A next link named but not followable (a path outside the base URL without a query) still says more follows.
  const more = flag ?? found !== undefined;
  if (!more) return { paginated, unfollowable: false };
  if (!way) return { paginated, unfollowable: true };
  if (found!.cursor !== undefined) return { paginated, cursor: found!.cursor, via: found!.via, unfollowable: false };
  return {
    paginated,
    ...(found!.query ? { query: found!.query } : {}),
    ...(found!.path !== undefined ? { path: found!.path } : {}),
    via: found!.via,
    unfollowable: false,
  };
}

/** Where a list's next page is asked for: its cursor, or the query and path a server paging otherwise gave. */
export interface PageRequest {
  cursor?: string;
  next?: Record<string, string>;
  /** The path to ask at instead of the list's own (a next link's); a cursor is then sent there too. */
  path?: string;
}

/** The list named as next a page it had already given: following it would never end (exit 8: the list is not whole). */
export class PageLoopError extends CliError {
  override readonly name = 'PagingLoop';
  override get code(): string {
    return 'PAGING_LOOP';
  }
  constructor(
    pages: number,
    readonly traceId: string | undefined,
  ) {
    super(
      'pending',
      `the server's list names as its next page one it already gave: stopped after ${pages} page${pages === 1 ? '' : 's'} to avoid a loop; the rest was not fetched`,
      `the server's paging is broken: report it to the provider${traceId ? `, quoting the trace ID ${traceId}` : ''}`,
    );
  }
}

const pageKey = (r: PageRequest) => JSON.stringify([r.cursor ?? null, r.next ?? null, r.path ?? null]);

/**
 * The request of the page after `list`, asked for with `asked`; undefined on the last page.
 * `seen` holds the requests made so far (the caller keeps it across pages): a server naming
 * one of them again would never end, and is a PageLoopError (exit 8) after `pages` pages.
 */
export function nextPageRequest(
  list: Pick<ListBody, 'has_more' | 'next_cursor' | 'next_query' | 'next_path'>,
  asked: PageRequest,
  loop: { seen: Set<string>; pages: number; traceId: string | undefined } = { seen: new Set(), pages: 1, traceId: undefined },
): PageRequest | undefined {
  if (!list.has_more) return undefined;
  let next: PageRequest;
  // Every key set, so that spread over a query one replaces the other's value of the last page.
  if (list.next_cursor) next = { cursor: list.next_cursor, next: undefined, path: asked.path };
  else if (list.next_query || list.next_path !== undefined)
    next = { cursor: undefined, next: list.next_query, path: list.next_path ?? asked.path };
  else return undefined;
  loop.seen.add(pageKey(asked));
  const key = pageKey(next);
  if (loop.seen.has(key)) throw new PageLoopError(loop.pages, loop.traceId);
  loop.seen.add(key);
  return next;
}
