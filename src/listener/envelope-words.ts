/**
 * Why a body is not an event envelope, in plain words: what was expected (a JSON object with
 * `event`, `event_id`, `created_at` and `data`) and what was received, field by field. Names
 * fields and kinds of value only, never a received value (a payload may hold anything).
 */
import { isPrintableName, MAX_NAME_LENGTH } from '../core/output/printable.js';
import type { EnvelopeIssue } from './envelope.js';

const EXPECTED = 'a JSON object with event, event_id and created_at (strings) and data (an object)';

/** A JSON value's kind with its article: "an array", "a string", "null". */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'a boolean' : 'a string';
}

/** "a, b and c". */
function listed(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

/** What is wrong with each field of the envelope, by its path ('' for the body itself). */
export function envelopeIssues(json: unknown): EnvelopeIssue[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return [{ path: '', message: `expected ${EXPECTED}, received ${kindOf(json)}` }];
  const v = json as Record<string, unknown>;
  const issues: EnvelopeIssue[] = [];
  for (const field of ['event', 'event_id', 'created_at'] as const) {
    const value = v[field];
    if (value === undefined) issues.push({ path: field, message: 'missing (expected a string)' });
    else if (typeof value !== 'string') issues.push({ path: field, message: `${kindOf(value)}, not a string` });
    else if (field !== 'created_at' && !isPrintableName(value))
      issues.push({ path: field, message: `not a name of 1 to ${MAX_NAME_LENGTH} printable characters (no control or format characters)` });
  }
  const data = v.data;
  if (data === undefined) issues.push({ path: 'data', message: 'missing (expected an object)' });
  else if (typeof data !== 'object' || data === null || Array.isArray(data) || Object.getPrototypeOf(data) !== Object.prototype)
    issues.push({ path: 'data', message: `${kindOf(data)}, not an object` });
  return issues;
}

/** The refusal's message: "body is not an event envelope: expected …; received …". */
export function envelopeMessage(issues: readonly EnvelopeIssue[]): string {
  const root = issues.find((i) => i.path === '');
  if (root) return `body is not an event envelope: ${root.message}`;
  const missing = issues.filter((i) => i.message.startsWith('missing')).map((i) => i.path);
  const other = issues.filter((i) => !i.message.startsWith('missing')).map((i) => `${i.path} is ${i.message}`);
  const parts = [...(missing.length ? [`${listed(missing)} ${missing.length === 1 ? 'is' : 'are'} missing`] : []), ...other];
  return `body is not an event envelope (expected ${EXPECTED}): ${parts.join('; ')}`;
}
