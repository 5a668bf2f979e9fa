/**
 * The sandbox state: plain JSON-serialisable records (times in epoch ms, money in integer
 * minor units), so the whole state can be written to and read from the state file as is.
 */
import type { EventType } from '../../contract/events.js';
import type { ExpiryPolicy } from '../../contract/catalog.js';
import type { DRIFT_RESOLUTIONS } from '../../contract/reconciliation.js';
import type { FULFILLED_FROM, OrderStatus } from '../../contract/orders.js';
import type { TransactionType } from '../../contract/money.js';

export const STATE_VERSION = 1;

export interface CategoryRecord {
  category_id: string;
  name: string;
  description: string;
}

export interface ProductRecord {
  product_id: string;
  name: string;
  category_id: string;
  vendor: string;
  currency: string;
  countries: string[];
  /** Major units, as in the contract. */
  denominations: number[];
  expiry_policy: ExpiryPolicy;
  /** Cache stock per denomination (keys are String(denomination)). */
  cached: Record<string, number>;
  /** Cache never runs out (sbx-instant). */
  cache_unlimited: boolean;
  /** Whether the vendor can fulfil what the cache cannot. */
  vendor_available: boolean;
  /** Sandbox behaviour of the deterministic products. */
  behaviour: ProductBehaviour;
  /** Products of this kind carry a pin with their code. */
  has_pin: boolean;
}

export const ORDER_GATES = ['held', 'approved', 'rejected', 'withdrawn'] as const;
export type OrderGate = (typeof ORDER_GATES)[number];

export type ProductBehaviour = 'normal' | 'instant' | 'async' | 'partial' | 'gated' | 'out_of_stock' | 'vendor_fail';

export interface WalletRecord {
  available_minor: number;
  updated_at: number;
}

export interface PartnerRecord {
  partner_id: string;
  name: string;
  /** Categories open to this partner. */
  categories: string[];
  wallets: Record<string, WalletRecord>;
  created_at: number;
}

export interface ApiKeyRecord {
  api_key: string;
  api_secret: string;
  partner_id: string;
  allowlist: string[];
  created_at: number;
  revoked_at: number | null;
}

export interface VoucherRecord {
  voucher_id: string;
  product_id: string;
  denomination: number;
  expiry: string | null;
  /** PENDING until the vendor or cache allocates it; PENDING vouchers are not shown. */
  status: 'PENDING' | 'ISSUED' | 'FAILED';
  code: string | null;
  pin: string | null;
  source: 'cache' | 'vendor' | null;
  issued_at: number | null;
}

export interface TimelineRecord {
  status: OrderStatus;
  at: number;
  note: string | null;
}

export interface OrderItemRecord {
  product_id: string;
  denomination: number;
  quantity: number;
}

export interface OrderStep {
  kind: 'process' | 'complete';
  at: number;
}

export interface OrderRecord {
  order_id: string;
  partner_id: string;
  api_key: string;
  status: OrderStatus;
  items: OrderItemRecord[];
  currency: string;
  total_minor: number;
  refunded_minor: number;
  reference: string | null;
  fulfilled_from: (typeof FULFILLED_FROM)[number] | null;
  created_at: number;
  updated_at: number;
  /** When it reached DELIVERED / PARTIALLY_DELIVERED. */
  settled_at: number | null;
  vouchers: VoucherRecord[];
  timeline: TimelineRecord[];
  /** `held` while waiting at the admin gate, then the gate's outcome; null for an order that was never gated. */
  gate: OrderGate | null;
  /** Set it, then call `rt.stepSet(order)`: the scheduler finds due steps through that. */
  next_step: OrderStep | null;
}

export interface TransactionRecord {
  transaction_id: string;
  partner_id: string;
  type: TransactionType;
  amount_minor: number;
  currency: string;
  balance_after_minor: number;
  order_id: string | null;
  payout_id: string | null;
  description: string;
  created_at: number;
}

export interface PayoutRecord {
  payout_id: string;
  partner_id: string;
  status: 'PENDING' | 'PAID' | 'FAILED';
  amount_minor: number;
  currency: string;
  reference: string | null;
  transaction_id: string;
  created_at: number;
}

export interface WebhookSecret {
  secret: string;
  created_at: number;
  /** Set when a newer secret replaced this one; valid until then. */
  expires_at: number | null;
}

export interface WebhookRecord {
  webhook_id: string;
  partner_id: string;
  url: string;
  events: EventType[];
  description: string | null;
  secrets: WebhookSecret[];
  created_at: number;
  updated_at: number;
}

export interface EventRecord {
  event_id: string;
  partner_id: string;
  event: EventType;
  order_id: string | null;
  created_at: number;
  data: Record<string, unknown>;
}

export interface DeliveryAttempt {
  attempt: number;
  at: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface DeliveryRecord {
  delivery_id: string;
  event_id: string;
  partner_id: string;
  webhook_id: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: DeliveryAttempt[];
  first_attempt_at: number | null;
  /** Set it, then call `rt.attemptSet(delivery)`: the scheduler finds due attempts through that. */
  next_attempt_at: number | null;
  created_at: number;
}

export interface CodeAccessRecord {
  access_id: string;
  order_id: string;
  partner_id: string;
  api_key: string;
  trace_id: string;
  source_ip: string | null;
  voucher_count: number;
  at: number;
}

export interface DriftRecord {
  drift_id: string;
  partner_id: string;
  order_id: string;
  vendor: string;
  product_id: string;
  our_allocation: string;
  vendor_record: string;
  /** An unmatched drift: the vendor has no record of the allocation at all. */
  unmatched: boolean;
  detected_at: number;
  resolution: (typeof DRIFT_RESOLUTIONS)[number];
  resolved_at: number | null;
}

export interface IdempotencyRecord {
  scope: string;
  body_hash: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  created_at: number;
}

export interface SandboxState {
  version: typeof STATE_VERSION;
  /**
   * Set only by the document dialect; absent means `decisions` (so a decisions state file
   * is what it was before dialects existed). Ids of one dialect are not those of the other:
   * a sandbox refuses a state file of the other dialect.
   */
  dialect?: 'document';
  /** The next decimal id per prefix (document dialect: `ord` → 981234, …). */
  id_counters?: Record<string, number>;
  seed: number;
  default_partner_id: string;
  admin_token: string;
  clock_offset_ms: number;
  rng_state: number;
  categories: CategoryRecord[];
  products: Record<string, ProductRecord>;
  partners: Record<string, PartnerRecord>;
  keys: Record<string, ApiKeyRecord>;
  orders: Record<string, OrderRecord>;
  transactions: TransactionRecord[];
  payouts: Record<string, PayoutRecord>;
  webhooks: Record<string, WebhookRecord>;
  events: EventRecord[];
  deliveries: Record<string, DeliveryRecord>;
  code_accesses: CodeAccessRecord[];
  drifts: Record<string, DriftRecord>;
  idempotency: Record<string, IdempotencyRecord>;
}
