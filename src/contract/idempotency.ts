/**
 * The Idempotency-Key rule of the contract (API document, "Idempotency"): 1–255 printable
 * ASCII characters. The client, the CLI's flags and the sandbox all check keys with this.
 */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_RULE = '1–255 printable ASCII characters';

export function isIdempotencyKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}
