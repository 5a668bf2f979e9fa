/**
 * The certification checklist as data: each check has a stable id, a title, what it proves,
 * what it needs (the operator surface, reachable webhooks, the partner's own receiver), and
 * a run function that talks to the server through the context. The runner (runner.ts) runs
 * them in order and the reporters (reporters/) print the results.
 */
import type { ApiClient } from '../core/http/types.js';
import type { Clock } from '../core/time/clock.js';
import type { AdminTarget } from '../api/sandbox-admin.js';
import type { SigningPathVariant } from '../core/signer/request.js';
import type { ContractDrift } from '../core/http/validate.js';
import type { CertifyListener } from './listener.js';
import type { RawSender } from './raw.js';

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'warn';

/** What a check needs beyond the partner API. */
export type Need =
  /** The sandbox's operator surface (approve, reject, partial, clock, redeliver). */
  | 'admin'
  /** Webhook deliveries from the server reaching our listener. */
  | 'webhooks'
  /** The partner's own webhook receiver (`--webhook-target`). */
  | 'target';

export interface CheckDef {
  /** Stable id, `group.name`: what --only and --skip take, the JUnit test name. */
  id: string;
  title: string;
  /** What a pass proves, one sentence. */
  proves: string;
  needs?: Need[];
  /**
   * The check waits for (or reads) the webhook deliveries that reached the listener: when one
   * ran and none was received, the run warns that deliveries do not arrive.
   */
  waitsForDelivery?: boolean;
  /** A check that can only warn (never fail) is not required for certification. Default true. */
  required?: boolean;
  /** Longest the check may take (default 30 s, scaled down in the embedded sandbox). */
  timeoutMs?: number;
  run(ctx: CheckContext): Promise<CheckOutcome | void>;
}

/** What a check returns: nothing is a pass; `warn` a pass with a reservation. */
export interface CheckOutcome {
  status?: 'pass' | 'warn';
  /** One line: what was seen. */
  message?: string;
}

/** The fulfilment path a check needs a product for (`--product ROLE=ID`). */
export type ProductRole = 'instant' | 'async' | 'outOfStock' | 'gated';

/** The product certify orders for a role, as named (its denomination and currency read from the server when not given). */
export interface ProductChoice {
  id: string;
  denomination?: number;
  currency?: string;
  /** `sandbox`: the embedded sandbox's; `option`: --product; `profile`: saved in the profile; `default`: the sandbox's id tried on another server. */
  from: 'sandbox' | 'option' | 'profile' | 'default';
}

/** A product as ordered: its id, and the denomination and currency of each order of it. */
export interface FixtureProduct {
  id: string;
  denomination: number;
  currency: string;
}

/** The products the checks order, by the path each takes on the server. */
export interface Fixtures {
  /** Always delivered from the cache (201 with codes). */
  instant: ProductChoice;
  /** Always fulfilled asynchronously (PENDING, then a webhook). */
  async: ProductChoice;
  /** Never in stock (409 INSUFFICIENT_INVENTORY). */
  outOfStock: ProductChoice;
  /** Held at the admin gate until approved or rejected. */
  gated: ProductChoice;
  /** The denomination ordered when a product shows none certify can read. */
  denomination: number;
  /** The currency assumed when a product names none. */
  currency: string;
}

/** What the run learnt of a role's product (the report's "products used"). */
export interface ProductUse {
  /** Whether the server has it (GET /products/{id} answered 2xx). */
  found: boolean;
  denomination?: number;
  currency?: string;
  /** Checks skipped because the server has no such product. */
  skipped: string[];
}

/** Everything a check may use. */
export interface CheckContext {
  /** The CLI's own signed client (retries, pacing, idempotency): trace IDs recorded per check. */
  client: ApiClient;
  /** Hand-made requests (a tampered signature, a stale timestamp, a fault header): recorded too. */
  raw: RawSender;
  /** The operator surface, when there is one. */
  admin?: AdminTarget;
  /** Our own listener, registered with the server, when webhooks can reach it. */
  listener?: CertifyListener;
  /** The partner's receiver (`--webhook-target`) and the secret it verifies with. */
  target?: { url: string; secret: string };
  fixtures: Fixtures;
  /** The signing path variant the profile uses. */
  signingPath: SigningPathVariant;
  clock: Clock;
  signal: AbortSignal;
  /** Scales waits for asynchronous work (fulfilment, retries) to the server's pace. */
  timeScale: number;
  /** Shared between checks: what an earlier check made (orders, codes, the wallet baseline). */
  shared: Shared;
  /** The id of the check running (set by the runner). */
  checkId?: string;
  /** A reservation about the current check, kept in its result (a pass becomes a warn). */
  warn(message: string): void;
  /** Every request of the run so far, all checks (the runner's recorder): for report.trace-ids. */
  requests?: () => readonly RecordedRequest[];
  /** Every difference from the contract the client saw so far: for report.contract. */
  drifts?: () => readonly ContractDrift[];
}

export interface PlacedOrder {
  order_id: string;
  total_amount: number;
  currency: string;
  /** Codes of a cache-hit answer, by voucher id (never printed). */
  codes?: Record<string, string>;
}

export interface Shared {
  /** Wallet available balance (minor units) per currency before the first order of the run. */
  baseline?: Record<string, number>;
  /** Orders this run placed (and expects to have debited). */
  orders: PlacedOrder[];
  /** Refunds this run expects (minor units per currency). */
  refundsMinor: Record<string, number>;
  cacheHit?: PlacedOrder;
  /** A write signed as the CLI signs it was accepted (signing.write-accepted): the credentials work. */
  signedWriteAccepted?: boolean;
  /** Offset of the server's clock from ours, in seconds (server − local), when known. */
  clockOffsetSeconds?: number;
  /** Our listener is registered as the partner's webhook endpoint and verifies with its secret (webhooks.register). */
  webhookRegistered?: boolean;
  /** POST /webhooks pointed the partner's endpoint at the listener (even if no secret came back): it is put back. */
  endpointReplaced?: boolean;
  /**
   * The partner's own endpoint found before the run (profile mode): certify registers its
   * listener in its place and puts it back afterwards, without rotating its secret.
   */
  existingWebhook?: { state: 'registered'; url: string; events?: string[]; description?: string | null } | { state: 'none' };
  /** The profile certified (profile mode): named in the commands a failure suggests. */
  profileName?: string;
  /** The webhook secret the profile holds: verifies deliveries to an endpoint that already existed. */
  knownWebhookSecret?: string;
  /** Orders placed before the listener became the endpoint (their events went elsewhere first). */
  ordersBeforeRegistration?: string[];
  /** The embedded sandbox: its endpoint's secret may be rotated (nobody else depends on it). */
  mayRotateSecret?: boolean;
  /** The products looked up so far, by role: found or not, what is ordered, which checks went without. */
  products?: Partial<Record<ProductRole, ProductUse>>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  status: number | null;
  trace_id: string | null;
  attempt: number;
  idempotency_key: string | null;
}

export interface CheckResult {
  id: string;
  title: string;
  proves: string;
  status: CheckStatus;
  required: boolean;
  duration_ms: number;
  /** What was seen (pass, warn), why it failed, or why it was skipped. */
  message: string;
  /** Trace IDs of every request the check made, in order; for a failure on an answer another check had (a shared look-up), that answer's last. */
  trace_ids: string[];
  requests: RecordedRequest[];
  warnings: string[];
  /** On failure: what was expected and what came. */
  expected?: string;
  actual?: string;
  /** On failure: a command that repeats the request (never with a secret in it). */
  reproduce?: string;
}
