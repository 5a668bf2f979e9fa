/**
 * The hint printed on stderr after one page of a list: the full command that prints the
 * next page. A cursor only continues the query it came from, so the hint repeats every
 * filter and option that shaped this page (and the global --profile / --base-url that
 * chose the server), quoted for a POSIX shell, with the new cursor in place of any old one.
 * Light, safe anywhere.
 */
import { commandLine, type Operand } from './shell-quote.js';

/** A flag and its value as the user would type them: `true` for a switch, undefined/false to leave it out. */
export type HintFlag = readonly [flag: string, value: string | number | boolean | undefined];

/** The root options that chose the server (`f.globals()`): repeated in suggested commands. */
export interface HintGlobals {
  profile?: string;
  baseUrl?: string;
  /** Repeated in a next-page command only: the next page is queried alike. */
  jmespath?: string;
  /**
   * The environment variables this run's API key and secret came from (VOUCHERS_API_KEY,
   * VOUCHERS_API_SECRET), in place of the profile's: a refused credential is fixed there.
   */
  envCredentials?: readonly string[];
  /**
   * Where this run's base URL came from: the profile (named), VOUCHERS_BASE_URL or --base-url;
   * a hint that the base URL is wrong says where to change it.
   */
  baseUrlFrom?: { source: 'flag' | 'env' | 'profile' | 'default'; profile?: string };
}

export interface NextPageCommand {
  /** The command words after `vouchers`, e.g. `['transactions', 'list']`. */
  command: readonly string[];
  /** Filters and options of this run, in the order to print them (no --cursor, no --all). */
  flags: readonly HintFlag[];
  /** The root options of this run (`f.globals()`): --profile and --base-url are repeated. */
  globals?: HintGlobals;
  /** The next page's cursor; undefined when the server names its next page otherwise (a link, a page number): the hint is then --all. */
  cursor: string | undefined;
}

function words(flags: readonly HintFlag[]): string[] {
  const out: string[] = [];
  for (const [flag, value] of flags) {
    if (value === undefined || value === false) continue;
    out.push(flag);
    if (value !== true) out.push(String(value));
  }
  return out;
}

/**
 * `vouchers [--profile P] [--base-url U] command… flags…`, every word shell-quoted: a
 * command a hint or message suggests, to paste as it is, reaching the same server. Ids in
 * `command` are given as operand(id): one starting with `-` is then written after `--`.
 */
export function suggestedCommand(
  globals: HintGlobals | undefined,
  command: readonly (string | Operand)[],
  flags: readonly HintFlag[] = [],
): string {
  return commandLine([
    'vouchers',
    ...words([
      ['--profile', globals?.profile],
      ['--base-url', globals?.baseUrl],
    ]),
    ...command,
    ...words(flags),
  ]);
}

/** The output options of a run (--json, --output, --fields with names), repeated in its next-page hint. */
export function outputHintFlags(flags: { json?: boolean; output?: string; fields?: string | boolean }): HintFlag[] {
  return [
    ['--json', flags.json],
    ['--output', flags.output],
    ['--fields', typeof flags.fields === 'string' ? flags.fields : undefined],
  ];
}

/** `vouchers [--profile P] noun verb --filter x … --cursor C` (`--all` without a cursor), shell-quoted. */
export function nextPageCommand(next: NextPageCommand): string {
  const way: HintFlag = next.cursor === undefined ? ['--all', true] : ['--cursor', next.cursor];
  return suggestedCommand(next.globals, next.command, [...next.flags, ['--jmespath', next.globals?.jmespath], way]);
}

/**
 * `More <noun> …:` and, on a line of its own (a terminal wraps a long cursor, and a command
 * alone on its line is copied whole), `vouchers … --cursor C`; for stderr. Every list
 * command that pages prints its hint with this.
 */
export function nextPageHint(noun: string, next: NextPageCommand, json = false): string {
  const heading =
    next.cursor === undefined
      ? `More ${noun} follow; the server names its next page with a link or page number, not a cursor: every page with --all`
      : `More ${noun} (or every page: --all instead of --cursor)`;
  return pageHint(heading, next, json);
}

/**
 * `heading:` and the next page's command on a line of its own; with JSON output (`json`:
 * --json, --output json|ndjson, --jmespath) one JSON line instead, as every notice then is,
 * carrying the cursor and the command for a script to follow:
 * `{"notice":{"code":"MORE_PAGES","message","next_cursor","command"}}`.
 */
export function pageHint(heading: string, next: NextPageCommand, json: boolean): string {
  const command = nextPageCommand(next);
  if (json) return JSON.stringify({ notice: { code: 'MORE_PAGES', message: heading, next_cursor: next.cursor ?? null, command } }) + '\n';
  return `${heading}:\n  ${command}\n`;
}
