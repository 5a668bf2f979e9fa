/**
 * The deterministic sandbox products, one per fulfilment path (USD, category `sandbox`,
 * denominations 10, 25, 50, 100, open to every partner). Light on purpose: the CLI and
 * tests import it without loading the server.
 */
export const SANDBOX_PRODUCTS = {
  /** Always from cache: 201 DELIVERED with codes and pins in the body. */
  instant: 'sbx-instant',
  /** Always asynchronous: 202 PENDING → PROCESSING → DELIVERED (fulfilled_from vendor). */
  async: 'sbx-async',
  /** Asynchronous, half the vouchers (at least one) fail: PARTIALLY_DELIVERED, failed part refunded. */
  partial: 'sbx-partial',
  /** Held at the admin gate (PENDING) until approved or rejected through the admin surface. */
  gated: 'sbx-gated',
  /** No stock at all: 409 INSUFFICIENT_INVENTORY, nothing debited. */
  outOfStock: 'sbx-out-of-stock',
  /** Asynchronous, the vendor fails: CANCELLED then REFUNDED with full credit. */
  vendorFail: 'sbx-vendor-fail',
} as const;

export type SandboxProductId = (typeof SANDBOX_PRODUCTS)[keyof typeof SANDBOX_PRODUCTS];

export const SANDBOX_CATEGORY = 'sandbox';
export const SANDBOX_DENOMINATIONS: readonly number[] = [10, 25, 50, 100];

/** The category that is not open to the default partner. */
export const RESTRICTED_CATEGORY = 'travel';

/** Funding of the default partner's wallets, in major units. */
export const DEFAULT_WALLETS: Readonly<Record<string, number>> = { USD: 100_000, EUR: 50_000, GBP: 50_000, JPY: 10_000_000 };
