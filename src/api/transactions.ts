/**
 * Typed calls of the transaction history: one page, or every page as an async generator
 * that fetches the next page only when the consumer asks for it (constant memory).
 */
import { nextPageRequest, PageLoopError, type PageRequest } from '../core/http/paging.js';
import type { Transaction, TransactionType } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';

export interface TransactionQuery {
  /** Inclusive UTC dates, YYYY-MM-DD. */
  from?: string;
  to?: string;
  order_id?: string;
  type?: TransactionType;
  /** Page size 1–200 (server default 50). */
  limit?: number;
  cursor?: string;
  /** The next page's query as the server gave it (a Link header, a page number): sent over the filters. */
  next?: Record<string, string>;
  /** The next page's path as a next link gave it (relative to the base URL), instead of /transactions. */
  path?: string;
}

export interface TransactionPage {
  data: Transaction[];
  has_more: boolean;
  next_cursor: string | null;
  next_query?: Record<string, string>;
  next_path?: string;
}

export async function listTransactions(
  client: ApiClient,
  query: TransactionQuery = {},
  options: { signal?: AbortSignal } = {},
): Promise<ApiResponse<TransactionPage>> {
  return client.request<TransactionPage>({
    method: 'GET',
    path: query.path ?? '/transactions',
    endpoint: 'listTransactions',
    query: {
      from: query.from,
      to: query.to,
      order_id: query.order_id,
      type: query.type,
      limit: query.limit,
      cursor: query.cursor,
      ...query.next,
    },
    ...options,
  });
}

export interface PageInfo {
  /** 1 for the first page. */
  page: number;
  rows: number;
  /** Rows yielded so far, this page included. */
  total: number;
  hasMore: boolean;
  /** The server's list says whether more follows (false: this answer is the whole list). */
  paginated: boolean;
  /** The way to the next page was read under other names than ours: what (ListRead.via). */
  via?: string;
  /** The list says more follows but names no way to ask for it (ListRead.unfollowable). */
  unfollowable?: boolean;
  traceId: string | undefined;
}

/**
 * Every transaction matching the query, page after page, newest first. Only one page is
 * held at a time; the next request goes out when the consumer has taken the last row.
 */
export async function* iterateTransactions(
  client: ApiClient,
  query: TransactionQuery = {},
  options: { signal?: AbortSignal; onPage?: (info: PageInfo) => void; onLoop?: (error: PageLoopError) => void } = {},
): AsyncGenerator<Transaction, void, undefined> {
  let asked: PageRequest | undefined = { cursor: query.cursor };
  let page = 0;
  let total = 0;
  const seen = new Set<string>();
  while (asked) {
    const res = await listTransactions(client, { ...query, ...asked }, { signal: options.signal });
    page += 1;
    const body = res.data;
    total += body.data.length;
    // A page the server named twice: this page's rows are still given, then the loop is said.
    let loop: unknown;
    let following: PageRequest | undefined;
    try {
      following = nextPageRequest(body, asked, { seen, pages: page, traceId: res.traceId });
    } catch (error) {
      loop = error;
    }
    const more = following !== undefined;
    options.onPage?.({
      page,
      rows: body.data.length,
      total,
      hasMore: more,
      paginated: res.list?.paginated ?? true,
      ...(res.list?.via ? { via: res.list.via } : {}),
      ...(res.list?.unfollowable ? { unfollowable: true } : {}),
      traceId: res.traceId,
    });
    let rows: Transaction[] | undefined = body.data;
    for (const row of rows) yield row;
    if (loop) {
      // The rows came: with onLoop the list ends here (printed whole), and the caller says why.
      if (options.onLoop && loop instanceof PageLoopError) return options.onLoop(loop);
      throw loop;
    }
    // Let the page go before the next one is fetched (the generator is suspended meanwhile).
    // eslint-disable-next-line no-useless-assignment
    rows = undefined;
    asked = following;
  }
}
