/** An expiry policy in words: "expires 12 months after issue", "expires on 2027-12-31", "never expires". */
export function describeExpiry(policy: { type: string; months?: number; date?: string } | string | null | undefined): string {
  if (!policy) return '';
  // A server that describes expiry in its own words.
  if (typeof policy !== 'object') return String(policy);
  switch (policy.type) {
    case 'months_from_issue':
      return `expires ${policy.months} month${policy.months === 1 ? '' : 's'} after issue`;
    case 'fixed_date':
      return `expires on ${policy.date}`;
    case 'none':
      return 'never expires';
    default:
      return `expiry policy "${policy.type}"`;
  }
}

/** A list field as text (`10, 25, 50`), whatever a server sent: a list, a single value, or nothing. */
export function listText(value: unknown, separator: string): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))).join(separator);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
