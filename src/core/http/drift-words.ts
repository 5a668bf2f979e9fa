/**
 * A contract check's differences in words (validate.ts finds them): each issue said once per
 * field, the same one across a list's records grouped, fields the contract does not name
 * listed, and enum values the CLI reads otherwise (an order status under another name) said
 * as read. Values are never quoted where a code or secret could sit; enum values are.
 */
import type { z } from 'zod';
import { statusReadAs } from '../../contract/order-values.js';
import { timestampOffsetIssue } from '../../contract/timestamp.js';
import { isRecord } from '../is-record.js';
import type { ContractDrift, ListBody } from './validate.js';

export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return /^-?\d+(\.\d+)?$/.test(v.trim()) ? 'a numeric string' : 'a string';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

export interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: unknown;
  format?: unknown;
  /** The values an enum allows (`invalid_value`). */
  values?: readonly unknown[];
}

/** A field path without list indexes: `data.3.vouchers.0.code` → `vouchers[].code` (the list's own `data` left out). */
function fieldPath(path: readonly PropertyKey[], list: boolean): string {
  const parts = list && path[0] === 'data' && typeof path[1] === 'number' ? path.slice(2) : [...path];
  let out = '';
  for (const p of parts) out += typeof p === 'number' ? '[]' : `${out === '' ? '' : '.'}${String(p)}`;
  return out === '' ? '(record)' : out;
}

/** One issue in words; values are never shown (a code or secret may sit where a type differs), enum values are. */
function describe(issue: ZodIssueLike, data: unknown): string {
  const value = valueAt(data, issue.path);
  if (value === undefined) return 'missing';
  if (issue.code === 'invalid_type') {
    return `${typeName(value)} where the contract has ${String(issue.expected)}`;
  }
  if (issue.code === 'invalid_value') {
    const readAs = statusReadAs(issue.values, value);
    return readAs ? `${JSON.stringify(value)}, read as ${readAs}` : `${JSON.stringify(value)} is not a value this version knows`;
  }
  const offset = issue.code === 'invalid_format' && issue.format === 'datetime' ? timestampOffsetIssue(value) : undefined;
  if (offset) return offset;
  if (issue.code === 'invalid_format') return `not in the contract's format${issue.format ? ` (${String(issue.format)})` : ''}`;
  if (issue.code === 'invalid_union') return `${typeName(value)} of a shape the contract does not have`;
  return issue.message.replace(/^Invalid input: /, '');
}

/** The record keys a schema names, for "not in the contract" (best effort; empty when unknown). */
function knownKeys(schema: z.ZodType | undefined): Set<string> {
  const shape = (schema as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return new Set(shape ? Object.keys(shape) : []);
}

/** A list schema's record schema (the schema itself when it is no list's). */
export function itemSchema(schema: z.ZodType, list: boolean): z.ZodType | undefined {
  if (!list) return schema;
  const data = (schema as unknown as { shape?: { data?: { element?: z.ZodType } } }).shape?.data;
  return data?.element;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * A drift of enum values only. An order status under another name (QUEUED, COMPLETED) is read
 * by the order verbs as the status it stands for: the warning says so (kind `names`), and
 * does not call it unknown; any other value is one this version does not know (`values`).
 */
export function valuesDrift(
  zodIssues: readonly ZodIssueLike[],
  data: unknown,
  isList: boolean,
  where: string,
  trace: string,
): Pick<ContractDrift, 'kind' | 'issues' | 'fields' | 'message'> {
  const named = (i: ZodIssueLike) => `${i.path.map(String).join('.') || '(body)'} = ${JSON.stringify(valueAt(data, i.path))}`;
  const unknown: string[] = [];
  const readAs: string[] = [];
  for (const i of zodIssues) {
    const as = statusReadAs(i.values, valueAt(data, i.path));
    if (as) readAs.push(`${named(i)}, read as ${as}`);
    else unknown.push(named(i));
  }
  const few = (v: string[], sep: string) => `${v.slice(0, 3).join(sep)}${v.length > 3 ? `${sep}…` : ''}`;
  const others = `${readAs.length === 1 ? 'a status' : 'statuses'} under another name than the contract's (${few(readAs, '; ')})`;
  const message =
    unknown.length === 0
      ? `${where} answered with ${others}; shown as sent${trace}`
      : `${where} answered with ${unknown.length === 1 ? 'a value' : 'values'} this version of vouchers does not know (${few(unknown, ', ')})${readAs.length > 0 ? ` and with ${others}` : ''}; shown as sent. A newer vouchers may know ${unknown.length === 1 ? 'it' : 'them'}${trace}`;
  const fields = [...new Set(zodIssues.map((i) => fieldPath(i.path, isList)))];
  return { kind: unknown.length === 0 ? 'names' : 'values', issues: [...unknown, ...readAs], fields, message };
}

/**
 * Every difference in words, the shape's first (`shapeIssues`), then each field's: the same
 * one across the records of a list grouped ("currency: missing (3 of 3 records)"), and, when
 * a field is missing, the fields the server sent that the contract does not name (often the
 * renamed ones). With the field paths that differ.
 */
export function issuesInWords(
  shapeIssues: readonly string[],
  zodIssues: readonly ZodIssueLike[],
  data: unknown,
  isList: boolean,
  schema: z.ZodType,
  /** A field already said to be read as the contract's (the id under `orderId`): not listed among those it does not name. */
  readAs?: string,
): { issues: string[]; fields: string[] } {
  const records = isList && data && Array.isArray((data as ListBody).data) ? (data as ListBody).data.length : 0;
  const grouped = new Map<string, { field: string; text: string; rows: Set<number> }>();
  for (const issue of zodIssues) {
    const field = fieldPath(issue.path, isList);
    const text = describe(issue, data);
    const key = `${field}\u0000${text}`;
    const g = grouped.get(key) ?? { field, text, rows: new Set<number>() };
    if (isList && typeof issue.path[1] === 'number') g.rows.add(issue.path[1]);
    grouped.set(key, g);
  }
  const issues = [
    ...shapeIssues,
    ...[...grouped.values()].map(
      (g) => `${g.field}: ${g.text}${records > 1 && g.rows.size > 0 ? ` (${g.rows.size} of ${plural(records, 'record')})` : ''}`,
    ),
  ];
  const missing = [...grouped.values()].some((g) => g.text === 'missing');
  const sample = isList ? (data as ListBody).data?.[0] : data;
  const known = knownKeys(itemSchema(schema, isList));
  const extra = missing && isRecord(sample) && known.size > 0 ? Object.keys(sample).filter((k) => !known.has(k) && k !== readAs) : [];
  if (extra.length > 0) issues.push(`fields the contract does not name: ${extra.slice(0, 8).join(', ')}${extra.length > 8 ? ', …' : ''}`);
  return { issues, fields: [...new Set([...grouped.values()].map((g) => g.field))] };
}
