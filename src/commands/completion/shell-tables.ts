/**
 * The completion model as shell functions with `case` tables, valid in both bash and zsh:
 *   _P_words PATH        subcommands of a command path
 *   _P_flags PATH        flags of a command path (the root's apply everywhere)
 *   _P_flag_value PATH F what the value of flag F is: profiles | products | file | choices:a b | (empty: no value)
 *   _P_positional PATH   what the first argument of a leaf command is
 */
import type { CompletionModel, ValueKind } from './model.js';

/** Single-quote a word for sh. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function kindWord(kind: ValueKind | undefined): string {
  if (kind === undefined) return '';
  if (typeof kind === 'string') return kind;
  return `choices:${kind.choices.join(' ')}`;
}

export function functionPrefix(model: CompletionModel): string {
  return `__${model.program.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

export function shellTables(model: CompletionModel): string {
  const p = functionPrefix(model);
  const key = (path: string[]) => shQuote(path.join(' '));
  const words = model.nodes
    .filter((n) => n.subcommands.length > 0)
    .map((n) => `    ${key(n.path)}) echo ${shQuote(n.subcommands.map((s) => s.name).join(' '))} ;;`);
  const flags = model.nodes
    .filter((n) => n.flags.length > 0)
    .map((n) => `    ${key(n.path)}) echo ${shQuote(n.flags.flatMap((f) => f.names).join(' '))} ;;`);
  const values: string[] = [];
  const root = model.nodes.find((n) => n.path.length === 0);
  for (const n of model.nodes) {
    if (n.path.length === 0) continue;
    for (const f of n.flags) {
      if (f.value === undefined) continue;
      values.push(`    ${f.names.map((name) => shQuote(`${n.path.join(' ')}|${name}`)).join('|')}) echo ${shQuote(kindWord(f.value))} ;;`);
    }
  }
  // The root's flags are accepted after any subcommand too.
  for (const f of root?.flags ?? []) {
    if (f.value === undefined) continue;
    values.push(`    ${f.names.map((name) => `*${shQuote(`|${name}`)}`).join('|')}) echo ${shQuote(kindWord(f.value))} ;;`);
  }
  const positional = model.nodes
    .filter((n) => n.positional !== undefined)
    .map((n) => `    ${key(n.path)}) echo ${shQuote(kindWord(n.positional))} ;;`);
  return `${p}_words() {
  case "$1" in
${words.join('\n')}
  esac
}

${p}_flags() {
  case "$1" in
${flags.join('\n')}
  esac
}

${p}_flag_value() {
  case "$1|$2" in
${values.join('\n')}
  esac
}

${p}_positional() {
  case "$1" in
${positional.join('\n')}
  esac
}
`;
}
