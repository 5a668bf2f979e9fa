/**
 * Commands printed in hints and messages of the order verbs: whole commands a user can
 * paste, quoted for a POSIX shell (file names with spaces or quotes, idempotency keys of
 * any printable ASCII), carrying the root --profile / --base-url of this run as the
 * next-page hints do, so the command reaches the same server.
 */
import { shellQuote, type HintFlag } from '../../core/output/next-page.js';

/** The root options that chose the server (`f.globals()`). */
export interface HintGlobals {
  profile?: string;
  baseUrl?: string;
}

/** `vouchers [--profile P] [--base-url U] words… flags…`, every word shell-quoted. */
export function ordersCommand(globals: HintGlobals | undefined, words: readonly string[], flags: readonly HintFlag[] = []): string {
  const out: string[] = ['vouchers'];
  const push = (list: readonly HintFlag[]) => {
    for (const [flag, value] of list) {
      if (value === undefined || value === false) continue;
      out.push(flag);
      if (value !== true) out.push(String(value));
    }
  };
  push([['--profile', globals?.profile], ['--base-url', globals?.baseUrl]]);
  out.push(...words);
  push(flags);
  return out.map(shellQuote).join(' ');
}

/** `--idempotency-key KEY` with the key quoted for the shell. */
export function keyFlag(key: string): string {
  return `--idempotency-key ${shellQuote(key)}`;
}
