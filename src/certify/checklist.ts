/**
 * The certification checklist, in the order it runs: access first (nothing else means
 * anything without it), the wallet baseline before the first order, signing, the webhook
 * registration (the asynchronous checks need it), idempotency, orders, errors, resilience,
 * the order lifecycle, the deliveries, the ledger, the partner's own receiver, and the
 * report's own checks last.
 */
import { ACCESS_CHECKS } from './checks/access.js';
import { ERROR_CHECKS } from './checks/errors.js';
import { IDEMPOTENCY_CHECKS } from './checks/idempotency.js';
import { LEDGER_CHECKS } from './checks/ledger.js';
import { LIFECYCLE_CHECKS } from './checks/lifecycle.js';
import { ORDER_CHECKS } from './checks/orders.js';
import { REPORT_CHECKS } from './checks/report.js';
import { RESILIENCE_CHECKS } from './checks/resilience.js';
import { SIGNING_CHECKS } from './checks/signing.js';
import { TARGET_CHECKS } from './checks/target.js';
import { WEBHOOK_CHECKS } from './checks/webhooks.js';
import type { CheckDef } from './types.js';

const pick = (checks: readonly CheckDef[], ids: readonly string[]) => checks.filter((c) => ids.includes(c.id));
const except = (checks: readonly CheckDef[], ids: readonly string[]) => checks.filter((c) => !ids.includes(c.id));

const BEFORE_ORDERS = ['ledger.baseline'];
const REGISTRATION = ['webhooks.register'];

export const CHECKLIST: readonly CheckDef[] = [
  ...ACCESS_CHECKS,
  ...pick(LEDGER_CHECKS, BEFORE_ORDERS),
  ...SIGNING_CHECKS,
  ...pick(WEBHOOK_CHECKS, REGISTRATION),
  ...IDEMPOTENCY_CHECKS,
  ...ORDER_CHECKS,
  ...ERROR_CHECKS,
  ...RESILIENCE_CHECKS,
  ...LIFECYCLE_CHECKS,
  ...except(WEBHOOK_CHECKS, REGISTRATION),
  ...except(LEDGER_CHECKS, BEFORE_ORDERS),
  ...TARGET_CHECKS,
  ...REPORT_CHECKS,
];

/** The groups, in order (the part of each id before the dot). */
export function groupsOf(checks: readonly CheckDef[]): string[] {
  return [...new Set(checks.map((c) => c.id.split('.')[0]!))];
}
