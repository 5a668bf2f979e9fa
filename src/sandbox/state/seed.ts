/**
 * The state a fresh sandbox starts from (and `reset` returns to): the seeded catalog, the
 * default partner with its funded wallets, and its API key.
 */
import { toMinor } from '../../contract/money-format.js';
import { DEFAULT_ALLOWLIST } from '../core/cidr.js';
import { post } from '../domain/ledger.js';
import type { SandboxDialect } from '../options.js';
import { DEFAULT_WALLETS, RESTRICTED_CATEGORY } from '../products.js';
import type { Runtime } from '../runtime.js';
import { CATEGORIES, seedProducts } from './catalog.js';
import { STATE_VERSION, type SandboxState } from './types.js';

export const DEFAULT_PARTNER_ID = 'ptn_default';

export function emptyState(seed: number, adminToken: string, dialect: SandboxDialect = 'decisions'): SandboxState {
  return {
    version: STATE_VERSION,
    ...(dialect === 'document' ? { dialect, id_counters: {} } : {}),
    seed,
    default_partner_id: DEFAULT_PARTNER_ID,
    admin_token: adminToken,
    clock_offset_ms: 0,
    rng_state: seed,
    categories: [],
    products: {},
    partners: {},
    keys: {},
    orders: {},
    transactions: [],
    payouts: {},
    webhooks: {},
    events: [],
    deliveries: {},
    code_accesses: [],
    drifts: {},
    idempotency: {},
  };
}

export interface SeedCredentials {
  apiKey: string;
  apiSecret: string;
}

/** Fill an empty state: catalog, default partner, its key and its funded wallets. */
export function seedState(rt: Runtime, credentials: SeedCredentials): void {
  const s = rt.state;
  const now = rt.clock.now();
  s.categories = CATEGORIES.map((c) => ({ ...c }));
  s.products = seedProducts(rt.rng);
  s.partners[DEFAULT_PARTNER_ID] = {
    partner_id: DEFAULT_PARTNER_ID,
    name: 'Sandbox Partner',
    categories: s.categories.map((c) => c.category_id).filter((id) => id !== RESTRICTED_CATEGORY),
    wallets: {},
    created_at: now,
  };
  s.keys[credentials.apiKey] = {
    api_key: credentials.apiKey,
    api_secret: credentials.apiSecret,
    partner_id: DEFAULT_PARTNER_ID,
    allowlist: [...DEFAULT_ALLOWLIST],
    created_at: now,
    revoked_at: null,
  };
  const partner = s.partners[DEFAULT_PARTNER_ID];
  for (const [currency, amount] of Object.entries(DEFAULT_WALLETS)) {
    post(rt, partner, { type: 'TOP_UP', amount_minor: toMinor(amount, currency), currency, description: 'Sandbox opening balance' });
  }
}
