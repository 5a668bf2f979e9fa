/**
 * The output flags every data-printing command shares: `--json`, `--output` (lists),
 * `--fields [a,b]`. Light: no heavy imports, safe in command registration files.
 */
import { Option, type Command, type OptionValues } from '../run/commander.js';
import { UsageError } from '../errors/index.js';
import { colorEnabled, type IO } from '../io/io.js';

export const LIST_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];
/** What is actually written: the default `table` becomes `tsv` when stdout is not a TTY (an explicit `--output table` stays a table). */
export type OutputFormat = ListFormat | 'tsv';

export interface OutputFlags {
  json?: boolean;
  output?: string;
  /** `true` when `--fields` was given without a value (list the fields). */
  fields?: string | boolean;
}

export interface OutputSettings {
  format: OutputFormat;
  /** Fields to show, in order; undefined = the command's default columns. */
  fields?: string[];
  /** `--fields` without a value: print the available fields and stop. */
  listFields: boolean;
  color: boolean;
  tty: boolean;
}

/** The flags `addOutputOptions(cmd, 'record')` adds, as commander parses them. */
export type RecordOutputFlags = {
  json?: true;
  /** `true` when `--fields` was given without a value (list the fields). */
  fields?: string | true;
};
/** The flags `addOutputOptions(cmd, 'list')` adds. */
export type ListOutputFlags = RecordOutputFlags & { output?: ListFormat };

/** Add `--json` and `--fields` (and `--output` for lists) to a command; the result's type has them. */
export function addOutputOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
  kind: 'list',
): Command<A, O & ListOutputFlags, G>;
export function addOutputOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
  kind?: 'record',
): Command<A, O & RecordOutputFlags, G>;
export function addOutputOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
  kind: 'list' | 'record',
): Command<A, O & (ListOutputFlags | RecordOutputFlags), G>;
export function addOutputOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
  kind: 'list' | 'record' = 'record',
): Command<A, O & ListOutputFlags, G> {
  cmd.option('--json', 'print JSON (the API resource as returned)');
  if (kind === 'list') {
    cmd.addOption(
      new Option(
        '-o, --output <format>',
        'output format (default: a table on a terminal, tab-separated rows when piped; --output table prints the table even when piped)',
      ).choices([...LIST_FORMATS]),
    );
  }
  cmd.option('--fields [names]', 'comma-separated fields to show; without a value, list the fields');
  return cmd as unknown as Command<A, O & ListOutputFlags, G>;
}

export function resolveOutput(io: IO, flags: OutputFlags, globalColor = true): OutputSettings {
  if (flags.json && flags.output && flags.output !== 'json') {
    throw new UsageError(`--json and --output ${flags.output} contradict each other`, 'use one of them');
  }
  const requested: ListFormat = flags.json ? 'json' : ((flags.output as ListFormat | undefined) ?? 'table');
  if (!LIST_FORMATS.includes(requested))
    throw new UsageError(`unknown output format ${JSON.stringify(requested)}`, `use one of ${LIST_FORMATS.join(', ')}`);
  // Only the default switches to TSV when piped: asked for by name, a table is a table.
  const format: OutputFormat = requested === 'table' && !io.stdoutIsTTY && !flags.json && flags.output === undefined ? 'tsv' : requested;
  const listFields = flags.fields === true;
  let fields: string[] | undefined;
  if (typeof flags.fields === 'string') {
    fields = flags.fields
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (fields.length === 0) throw new UsageError('--fields needs at least one field name', 'run with --fields and no value to list them');
  }
  return { format, fields, listFields, color: colorEnabled(io, 'stdout', !globalColor), tty: io.stdoutIsTTY };
}
