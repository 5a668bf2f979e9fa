/**
 * What differs between the sandbox's dialects. The domain (orders, ledger, fulfilment,
 * webhooks) is one; a dialect decides only what goes on the wire: which endpoints exist,
 * response bodies and statuses, error bodies, event payloads and the shape of ids.
 * Requests are accepted alike in every dialect (the CLI is strict in what it sends).
 */
import type { Endpoint } from '../../contract/endpoints.js';
import type { IdSource } from '../core/ids.js';
import type { Rng } from '../core/random.js';
import type { SandboxHttpError } from '../http/errors.js';
import type { Reply } from '../http/respond.js';
import type { SandboxConfig, SandboxDialect } from '../options.js';
import type {
  CategoryRecord,
  OrderRecord,
  PayoutRecord,
  ProductRecord,
  SandboxState,
  TransactionRecord,
  VoucherRecord,
  WalletRecord,
  WebhookRecord,
} from '../state/types.js';

/** `limit` and `cursor` as validated by the endpoint table (either may be absent). */
export interface ListQuery {
  limit?: number;
  cursor?: string;
}

/** Records, already chosen, filtered and sorted by the handler → the answer of the endpoint. */
export interface Presenter {
  /** GET /categories (the partner's open categories, by id). */
  categories(rows: CategoryRecord[], query: ListQuery): Reply;
  /** GET /products (filtered, by id). */
  products(rows: ProductRecord[], query: ListQuery): Reply;
  /** GET /products/{id}. */
  product(p: ProductRecord): Reply;
  /** POST /orders, once accepted: cache-hit (delivered, codes included) or cache-miss (PENDING). */
  orderPlaced(o: OrderRecord, cacheHit: boolean): Reply;
  /** GET /orders/{id}. */
  order(o: OrderRecord): Reply;
  /** GET /wallets, by currency. */
  wallets(rows: [currency: string, wallet: WalletRecord][]): Reply;
  /** GET /transactions (filtered, newest first). */
  transactions(rows: TransactionRecord[], query: ListQuery): Reply;
  /** POST /payouts. */
  payout(p: PayoutRecord): Reply;
  /** POST /webhooks; `secret` when one was issued (creation or rotation). */
  webhook(hook: WebhookRecord, secret: string | undefined, created: boolean): Reply;
}

/** The `data` of each event, built when the event is emitted (and stored with it). */
export interface EventPayloads {
  created(o: OrderRecord): Record<string, unknown>;
  processing(o: OrderRecord): Record<string, unknown>;
  delivered(o: OrderRecord): Record<string, unknown>;
  partiallyDelivered(o: OrderRecord, delivered: number, failed: number): Record<string, unknown>;
  cancelled(o: OrderRecord, reason: string, by: 'admin' | 'partner'): Record<string, unknown>;
  refunded(o: OrderRecord, amountMinor: number, transactionId: string): Record<string, unknown>;
  voucherIssued(o: OrderRecord, v: VoucherRecord): Record<string, unknown>;
}

export interface Dialect {
  name: SandboxDialect;
  /** Whether /api/v1 answers this endpoint (else 404, as an unknown path). */
  serves(e: Endpoint, config: SandboxConfig): boolean;
  present: Presenter;
  payloads: EventPayloads;
  /** An error of /api/v1 (and of paths outside the API and admin surface) as this dialect writes it. */
  errorReply(e: SandboxHttpError): Reply;
  /**
   * GET /orders/{id} shows the codes (no separate code endpoint): every such read that
   * shows one is recorded as a code access, as the code endpoint's reads are.
   */
  codesInOrderReads: boolean;
  /** The id source: `state()` is the current state (replaced by an admin reset). */
  ids(rng: Rng, now: () => number, state: () => SandboxState): IdSource;
}
