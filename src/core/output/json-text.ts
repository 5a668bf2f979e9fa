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
  if (!io.jsonQuery) return safeJson(value, indent) + '\n';
  const result = io.jsonQuery.apply(value);
  if (result === null && Array.isArray(value)) noteFieldOfArray(io, io.jsonQuery.expression);
  return render(result, indent);
}

/**
 * A list command prints a JSON array; `vouchers api` prints the API's `{"data": […]}`. An
 * expression written for the one (`data[?…]`) gives null on the other, silently: say why.
 */
function noteFieldOfArray(io: IO, expression: string): void {
  const field = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]|\s*\()/.exec(expression)?.[1];
  if (!field) return;
  io.stderr.write(
    `Note: --jmespath gave null: this command prints a JSON array, and "${field}" asks for a field of an object. ` +
      `Work on the array's items with [] or [?…] (e.g. --jmespath '[?status==\`"DELIVERED"\`]'); \`vouchers api\` prints the API's {"data": […]} instead.\n`,
  );
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
