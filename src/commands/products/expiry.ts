/** An expiry policy in words: "expires 12 months after issue", "expires on 2027-12-31", "never expires". */
export function describeExpiry(policy: { type: string; months?: number; date?: string } | null | undefined): string {
  if (!policy) return '';
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
