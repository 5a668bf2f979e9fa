/**
 * The text of JSON on stdout: every JSON document and NDJSON line a command prints goes
 * through here, so `--jmespath` (io.jsonQuery) applies to all of them alike. The query runs
 * on the data as it would be printed (codes and secrets already masked); a string result is
 * printed as text, without quotes (as gh's --jq does), anything else as JSON.
 */
import type { IO } from '../io/io.js';
import { escapeText, safeJson } from './printable.js';

function render(result: unknown, indent: number | undefined): string {
  return (typeof result === 'string' ? escapeText(result) : safeJson(result, indent)) + '\n';
}

/** One JSON document (`indent` 2 for pretty), with its newline. */
export function jsonDocument(io: IO, value: unknown, indent?: number): string {
  return io.jsonQuery ? render(io.jsonQuery.apply(value), indent) : safeJson(value, indent) + '\n';
}

/**
 * One NDJSON line, with its newline. With `--jmespath` the query runs on each line alone,
 * and a line whose result is null is left out: a query can filter a stream.
 */
export function jsonLine(io: IO, value: unknown): string {
  if (!io.jsonQuery) return safeJson(value) + '\n';
  const result = io.jsonQuery.apply(value);
  return result === null ? '' : render(result, undefined);
}
