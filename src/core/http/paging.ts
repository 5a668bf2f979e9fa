/**
 * How a list answer says where its next page is. The API document leaves the pagination
 * names open ("not shown"); ours is `has_more` + `next_cursor` at the top of the body. A
 * server may instead say it under other common names, which are followed too:
 * - a flag `has_more`/`hasMore`/`has_next`/`has_next_page`/`hasNextPage`;
 * - a cursor `next_cursor`/`nextCursor`/`next`/`next_page_token`/`nextPageToken`/`next_token`,
 *   at the top or in `pagination`, `meta`, `paging`, `page_info`/`pageInfo`, `links`/`_links`
 *   (a bare cursor is sent as `cursor`, the way next_cursor is; a URL or path is followed as
 *   given: its query is sent, the same way as a Link header's);
 * - a `Link: <…>; rel="next"` header, or page numbers (`next_page`, `page` below `pages`).
 * A list that says more follows but names no way to ask for it is `unfollowable`.
 */
import { isRecord } from '../is-record.js';

type Rec = Record<string, unknown>;

/** Where a list's next page is, as read from its answer. */
export interface Paging {
  /** The answer says anything about paging (a flag, a cursor field even null, a link, page numbers). */
  paginated: boolean;
  /** The cursor of the next page, sent as `cursor`. */
  cursor?: string;
  /** The next page's query (from a URL, a Link header or page numbers), sent over the filters. */
  query?: Record<string, string>;
  /** What was followed, for a notice (`"next"`, `pagination.next_cursor`, `the Link header`); undefined for our own next_cursor. */
  via?: string;
  /** The answer says more follows, but names no cursor, link or page to ask for it. */
  unfollowable: boolean;
}

const FLAGS = ['has_more', 'hasMore', 'has_next', 'has_next_page', 'hasNextPage'];
const CURSORS = ['next_cursor', 'nextCursor', 'next', 'next_page_token', 'nextPageToken', 'next_token'];
const HOLDERS = ['pagination', 'meta', 'paging', 'page_info', 'pageInfo', 'links', '_links'];

/** The query of a URL or path (`/api/v1/x?cursor=p2`, `https://h/x?page=2`, `?after=a`), or undefined without one. */
function urlQuery(url: string): Record<string, string> | undefined {
  try {
    const query = Object.fromEntries(new URL(url, 'http://x').searchParams);
    return Object.keys(query).length > 0 ? query : undefined;
  } catch {
    return undefined;
  }
}

/** The query of a `Link` header's rel="next" URL (RFC 8288), or undefined. */
function linkNext(link: string | undefined): Record<string, string> | undefined {
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!m || !/;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2]!)) continue;
    return urlQuery(m[1]!);
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
export function otherNextPage(body: unknown, headers: Record<string, string>): Record<string, string> | undefined {
  const linked = linkNext(headers.link);
  if (linked) return linked;
  if (!isRecord(body)) return undefined;
  const holder = isRecord(body.meta) ? body.meta : isRecord(body.pagination) ? body.pagination : body;
  const next = pageNumber(holder.next_page);
  if (next !== undefined) return { page: String(next) };
  const page = pageNumber(holder.page ?? holder.current_page);
  const last = pageNumber(holder.pages ?? holder.total_pages ?? holder.last_page ?? holder.page_count);
  if (page !== undefined && last !== undefined && page < last) return { page: String(page + 1) };
  return undefined;
}

/** A cursor field's value: a bare cursor, or a URL/path (a string, or `{"href": …}`) whose query is the next page's. */
function readNext(v: unknown): { cursor?: string; query?: Record<string, string>; link: boolean } | undefined {
  const href = isRecord(v) && typeof v.href === 'string' ? v.href : v;
  if (typeof href !== 'string' || href.trim() === '') return undefined;
  if (/^(https?:\/\/|\/|\?)/i.test(href)) return { query: urlQuery(href), link: true };
  return { cursor: href, link: false };
}

/**
 * Where the page after this answer is (see the file's comment). `headers` (the answer's) add
 * a Link header; without them only the body is read.
 */
export function pagingOf(body: unknown, headers: Record<string, string> = {}): Paging {
  if (!isRecord(body)) {
    const query = linkNext(headers.link);
    return query ? { paginated: true, query, via: 'the Link header', unfollowable: false } : { paginated: false, unfollowable: false };
  }
  const holders: [string, Rec][] = [['', body]];
  for (const h of HOLDERS) if (isRecord(body[h])) holders.push([`${h}.`, body[h]]);
  if (isRecord(body.data)) holders.push(['data.', body.data]);
  let flag: boolean | undefined;
  let paginated = false;
  let found: { cursor?: string; query?: Record<string, string>; via?: string } | undefined;
  for (const [prefix, h] of holders) {
    for (const k of FLAGS) {
      if (!(k in h)) continue;
      paginated = true;
      if (flag === undefined && typeof h[k] === 'boolean') flag = h[k];
    }
    for (const k of CURSORS) {
      if (!(k in h)) continue;
      paginated = true;
      const next = found?.cursor !== undefined || found?.query !== undefined ? undefined : readNext(h[k]);
      if (!next) continue;
      const ours = prefix === '' && k === 'next_cursor';
      found = { ...next, via: ours ? undefined : `"${prefix}${k}"${next.link ? ' (a URL, followed as given)' : ' (sent as cursor)'}` };
    }
  }
  if (!found?.cursor && !found?.query) {
    const query = otherNextPage(body, headers);
    if (query) found = { query, via: linkNext(headers.link) ? 'the Link header' : 'page numbers' };
  }
  if (found?.query || linkNext(headers.link)) paginated = true;
  const way = found?.cursor !== undefined || found?.query !== undefined;
  // A next link named but not followable (a path without a query) still says more follows.
  const more = flag ?? found !== undefined;
  if (!more) return { paginated, unfollowable: false };
  if (!way) return { paginated, unfollowable: true };
  return {
    paginated,
    ...(found!.cursor !== undefined ? { cursor: found!.cursor } : { query: found!.query }),
    via: found!.via,
    unfollowable: false,
  };
}
