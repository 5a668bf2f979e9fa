/**
 * The products certify orders, one per role (the fulfilment path a check needs): the
 * embedded sandbox's sbx-* fixtures unless the partner names the server's own with
 * `--product ROLE=ID[:DENOMINATION]` (or saves them in the profile). A product's
 * denomination and currency come from GET /products/{id} when not given, read forgivingly
 * (numbers, numeric strings, objects with an amount), never refused for their shape.
 */
import { amountValue } from '../contract/money-format.js';
import { UsageError } from '../core/errors/index.js';
import { isRecord } from '../core/is-record.js';
import type { Fixtures, ProductChoice, ProductRole, ProductUse } from './types.js';
import { parseProductValue as parseCoreProductValue } from '../core/config/product-value.js';
import { counted } from '../core/output/counted.js';

export interface RoleDef {
  role: ProductRole;
  /** How `--product` and the profile name it. */
  name: string;
  /** The orders it is for: what the server must do with them. */
  does: string;
  /** The embedded sandbox's product for it. */
  sandbox: string;
}

export const ROLES: readonly RoleDef[] = [
  { role: 'instant', name: 'instant', does: 'cache-hit orders, answered at once with their vouchers', sandbox: 'sbx-instant' },
  { role: 'async', name: 'async', does: 'orders answered PENDING, then delivered with an order.delivered webhook', sandbox: 'sbx-async' },
  { role: 'outOfStock', name: 'out-of-stock', does: 'orders refused with INSUFFICIENT_INVENTORY', sandbox: 'sbx-out-of-stock' },
  { role: 'gated', name: 'gated', does: 'orders held at the admin gate until the operator decides', sandbox: 'sbx-gated' },
];

export const roleDef = (role: ProductRole): RoleDef => ROLES.find((r) => r.role === role)!;

/** The denomination and currency of an order when the product shows none certify can read. */
export const FALLBACK_DENOMINATION = 10;
export const FALLBACK_CURRENCY = 'USD';

const ROLE_HINT = `roles: ${ROLES.map((r) => r.name).join(', ')}; e.g. --product instant=GIFT-US-25:25`;

/** The role a name given on the command line or in the profile stands for (`out-of-stock`, `out_of_stock`, `outOfStock`). */
export function roleNamed(text: string): ProductRole | undefined {
  const key = text.trim().toLowerCase().replace(/[_\s]/g, '-');
  if (key === 'outofstock') return 'outOfStock';
  return ROLES.find((r) => r.name === key)?.role;
}

/** `ID[:DENOMINATION]` (core/config/product-value.ts), with the roles named in the hint. */
export function parseProductValue(text: string, what: string): { id: string; denomination?: number } {
  return parseCoreProductValue(text, what, ROLE_HINT);
}

/** `--product ROLE=ID[:DENOMINATION]`, repeated: one product per role. */
export function parseProductOptions(specs: readonly string[]): Partial<Record<ProductRole, ProductChoice>> {
  const named: Partial<Record<ProductRole, ProductChoice>> = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq < 0) {
      // A role alone (`--product instant`) lacks its product; anything else lacks the role.
      const alone = roleNamed(spec);
      if (alone)
        throw new UsageError(
          `--product ${JSON.stringify(spec)} names the ${roleDef(alone).name} role but no product for it`,
          `use --product ${roleDef(alone).name}=ID[:DENOMINATION], e.g. --product ${roleDef(alone).name}=GIFT-US-25:25`,
        );
      throw new UsageError(`--product ${JSON.stringify(spec)} names no role`, `use --product ROLE=ID[:DENOMINATION] (${ROLE_HINT})`);
    }
    const roleText = spec.slice(0, eq);
    const role = roleNamed(roleText);
    if (!role) throw new UsageError(`--product: no role ${JSON.stringify(roleText.trim())}`, ROLE_HINT);
    if (named[role]) throw new UsageError(`--product ${roleDef(role).name} is given twice`, 'name one product per role');
    named[role] = { ...parseProductValue(spec.slice(eq + 1), `--product ${spec}`), from: 'option' };
  }
  return named;
}

/** The products of a run: the sandbox's, each replaced by the one named for its role. */
export function choosePlan(
  mode: 'sandbox' | 'profile',
  named: Partial<Record<ProductRole, ProductChoice>>,
  saved: Partial<Record<ProductRole, ProductChoice>> = {},
): Record<ProductRole, ProductChoice> {
  const plan = {} as Record<ProductRole, ProductChoice>;
  for (const r of ROLES) {
    const sandbox: ProductChoice =
      mode === 'sandbox'
        ? { id: r.sandbox, denomination: FALLBACK_DENOMINATION, currency: FALLBACK_CURRENCY, from: 'sandbox' }
        : { id: r.sandbox, from: 'default' };
    // The embedded sandbox is not the server a profile's saved products name.
    plan[r.role] = named[r.role] ?? (mode === 'profile' ? saved[r.role] : undefined) ?? sandbox;
  }
  return plan;
}

/** One denomination as a server may list it: 25, "25.00", {amount: 25}, {value: "25"}. */
function denominationValue(d: unknown): number | undefined {
  const direct = amountValue(d);
  if (direct !== undefined) return direct;
  if (!isRecord(d)) return undefined;
  for (const k of ['amount', 'value', 'denomination', 'face_value']) {
    const v = amountValue(d[k]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The denominations a product record offers, as far as they can be read (positive, ascending). */
export function offeredDenominations(product: unknown): number[] {
  if (!isRecord(product) || !Array.isArray(product.denominations)) return [];
  const values = product.denominations.map(denominationValue).filter((v): v is number => v !== undefined && v > 0);
  return [...new Set(values)].sort((a, b) => a - b);
}

/** The product's currency, upper-cased, when it names one (`usd`, `{code: "USD"}`). */
export function productCurrency(product: unknown): string | undefined {
  if (!isRecord(product)) return undefined;
  const c = isRecord(product.currency) ? (product.currency.code ?? product.currency.currency) : product.currency;
  return typeof c === 'string' && /^[A-Za-z]{3}$/.test(c.trim()) ? c.trim().toUpperCase() : undefined;
}

/**
 * The denomination to order when none was named: for an order answered from the cache,
 * the smallest with cache stock when the product says so; else the smallest offered.
 */
export function pickDenomination(product: unknown, role: ProductRole): number | undefined {
  const offered = offeredDenominations(product);
  if (role === 'instant' && isRecord(product) && isRecord(product.availability) && isRecord(product.availability.cached)) {
    const cached = product.availability.cached;
    const stocked = offered.find((d) => (amountValue(cached[String(d)]) ?? 0) > 0);
    if (stocked !== undefined) return stocked;
  }
  return offered[0];
}

/** The products saved in a profile (`vouchers profiles set NAME certify.product.ROLE ID[:DENOMINATION]`). */
export function savedProducts(saved: Record<string, string> | undefined): Partial<Record<ProductRole, ProductChoice>> {
  const products: Partial<Record<ProductRole, ProductChoice>> = {};
  for (const [name, value] of Object.entries(saved ?? {})) {
    const role = roleNamed(name);
    if (role) products[role] = { ...parseProductValue(value, `the profile's certify.product.${name}`), from: 'profile' };
  }
  return products;
}

/** A role's product in the report: what was ordered, from where, and whether the server has it. */
export interface ReportProduct {
  /** The role, as `--product` names it. */
  role: string;
  product_id: string;
  /** The denomination ordered (null when no check looked the product up). */
  denomination: number | null;
  currency: string | null;
  /** `sandbox`, `--product`, `profile`, or `default` (the sandbox's id tried on this server). */
  named_by: 'sandbox' | '--product' | 'profile' | 'default';
  /** Whether the server has it; null when no check that orders it ran. */
  found: boolean | null;
  /** Checks skipped because the server has no such product. */
  skipped_checks: string[];
}

const NAMED_BY = { sandbox: 'sandbox', option: '--product', profile: 'profile', default: 'default' } as const;

export function reportProducts(fixtures: Fixtures, uses: Partial<Record<ProductRole, ProductUse>> = {}): ReportProduct[] {
  return ROLES.map(({ role, name }) => {
    const choice = fixtures[role];
    const use = uses[role];
    return {
      role: name,
      product_id: choice.id,
      denomination: use?.found ? (use.denomination ?? null) : null,
      currency: use?.found ? (use.currency ?? null) : null,
      named_by: NAMED_BY[choice.from],
      found: use ? use.found : null,
      skipped_checks: [...(use?.skipped ?? [])],
    };
  });
}

/** The roles whose product the server lacks, with the checks skipped for it. */
export function missingProducts(products: readonly ReportProduct[]): { roles: string[]; checks: number } {
  const missing = products.filter((p) => p.skipped_checks.length > 0);
  return { roles: missing.map((p) => p.role), checks: missing.reduce((n, p) => n + p.skipped_checks.length, 0) };
}

/** The run warning for checks skipped for want of a product, naming the option for each role. */
export function missingProductsWarning(products: readonly ReportProduct[]): string | undefined {
  const { roles, checks } = missingProducts(products);
  if (checks === 0) return undefined;
  const options = roles.map((r) => `--product ${r}=ID`).join(' ');
  return `${counted(checks, 'check was', 'checks were')} skipped because this server has no product for their role (${roles.join(', ')}): name its products with ${options} (vouchers products list shows them; add :DENOMINATION to choose the amount)`;
}
