/** Zod issues → 422 VALIDATION_FAILED details `[{path:"items.0.quantity", message}]`. */
import type { z } from 'zod';
import { validationFailed, type ErrorDetailEntry } from './errors.js';

export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix: readonly (string | number)[] = []): ErrorDetailEntry[] {
  const details: ErrorDetailEntry[] = [];
  for (const issue of issues) {
    const base = [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p.description) : p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ path: [...base, key].join('.'), message: 'is not a known field; check the spelling' });
      continue;
    }
    details.push({ path: base.join('.'), message: issue.message });
  }
  return details;
}

/** Parse with a schema or throw 422. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, prefix: readonly (string | number)[] = []): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(issuesToDetails(result.error.issues, prefix));
}
