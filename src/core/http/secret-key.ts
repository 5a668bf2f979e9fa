/**
 * An idempotency key holding the profile's API secret (pasted after --idempotency-key) is
 * never sent: it would travel in a header, be printed as the key to retry with and stay in
 * the request log. The client checks every request; commands that print the key before
 * sending (orders create, payouts create, api) check it first.
 */
import { UsageError } from '../errors/index.js';

export function refuseSecretAsKey(key: string | undefined, secret: string | undefined): void {
  if (key === undefined || secret === undefined || secret.length < 8 || !key.includes(secret)) return;
  throw new UsageError(
    "the idempotency key holds this profile's API secret [the API secret, redacted]: nothing was sent",
    'give any other key (e.g. --idempotency-key order-2026-11-22-001), or leave --idempotency-key out to get a fresh one; the secret only signs requests',
  );
}
