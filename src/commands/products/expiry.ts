/** An expiry policy in words: "expires 12 months after issue", "expires on 2027-12-31", "never expires". */
export function describeExpiry(policy: unknown): string {
  if (policy === null || policy === undefined) return '';
  // A server that describes expiry in its own words.
  if (typeof policy !== 'object') return String(policy);
  const p = policy as { type?: unknown; months?: unknown; date?: unknown };
  if (p.type === 'months_from_issue' && typeof p.months === 'number')
    return `expires ${p.months} month${p.months === 1 ? '' : 's'} after issue`;
  if (p.type === 'fixed_date' && typeof p.date === 'string') return `expires on ${p.date}`;
  if (p.type === 'none') return 'never expires';
  // A policy of another shape ({"kind": "relative", "days": 365}, a type of its own with its
  // own fields) is shown as it came, never as words it does not say.
  const keys = Object.keys(policy);
  if (typeof p.type === 'string' && keys.length === 1) return `expiry policy "${p.type}"`;
  return keys.length === 0 ? '' : JSON.stringify(policy);
}

/** A list field as text (`10, 25, 50`), whatever a server sent: a list, a single value, or nothing. */
export function listText(value: unknown, separator: string): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))).join(separator);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
