/**
 * `vouchers doctor`: is this machine ready to call the API? Every check prints one line
 * (✔ ok, ✖ failed with the fix, ! warning or not checked); the first failure decides the
 * exit code (usage 2, auth 3, network 7).
 */
import { Chalk } from 'chalk';
import { resolveProfileUnchecked } from '../../core/config/resolve.js';
import type { ConfigStore, ResolvedProfile } from '../../core/config/types.js';
import { CliError } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import { asciiText } from '../../core/io/ascii.js';
import { asciiOnly, colorEnabled, out } from '../../core/io/io.js';
import { wrapNote } from '../../core/io/note-wrap.js';
import { printJson } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import { baseUrlCheck, credentialsCheck, permissionsCheck, profileCheck, webhookSecretCheck } from './local-checks.js';
import { networkChecks } from './network-checks.js';
import { fail, skip, type CheckResult } from './result.js';
import type { DoctorOptions } from './index.js';

export type { DoctorOptions };

const NETWORK_CHECKS: [string, string][] = [
  ['reachable', 'Server reachable'],
  ['authentication', 'Authentication'],
  ['ip_allowlist', 'IP allowlist'],
  ['signing', 'Request signing'],
  ['clock_skew', 'Clock skew'],
];

/** The profile line above failed: the profile could not be resolved (there may well be one). */
const NO_PROFILE = 'not checked: fix the profile problem above first';

function messageOf(e: unknown): { message: string; hint?: string } {
  if (e instanceof CliError) return { message: e.message, hint: e.hint };
  return { message: e instanceof Error ? e.message : String(e) };
}

export async function collectChecks(f: Factory): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  let store: ConfigStore | undefined;
  let profile: ResolvedProfile | undefined;
  try {
    store = await f.config();
    profile = resolveProfileUnchecked(store, f.io.env, f.globals());
  } catch (e) {
    if (e instanceof CliError && e.kind === 'interrupted') throw e;
    const { message, hint } = messageOf(e);
    results.push(fail('profile', 'Profile', message, hint ?? 'vouchers profiles list', 'usage'));
  }

  if (profile) {
    const local = [profileCheck(profile), credentialsCheck(profile), baseUrlCheck(profile)];
    results.push(...local);
    if (local.some((r) => r.level === 'fail')) {
      for (const [check, label] of NETWORK_CHECKS) results.push(skip(check, label, 'not checked: fix the problems above first'));
    } else {
      let client: ApiClient | undefined;
      try {
        client = await f.client();
      } catch (e) {
        if (e instanceof CliError && e.kind === 'interrupted') throw e;
        const { message, hint } = messageOf(e);
        results.push(fail('reachable', 'Server reachable', `cannot build a client: ${message}`, hint ?? 'vouchers profiles show', 'usage'));
        for (const [check, label] of NETWORK_CHECKS.slice(1)) results.push(skip(check, label, 'not checked: fix the problems above first'));
      }
      if (client) results.push(...(await networkChecks(client, f.clock, profile, f.io.signal)));
    }
  } else {
    for (const [check, label] of [['credentials', 'Credentials'], ['base_url', 'Base URL'], ...NETWORK_CHECKS]) {
      results.push(skip(check as string, label as string, NO_PROFILE));
    }
  }

  results.push(permissionsCheck(store?.path, store?.dir));
  results.push(profile ? webhookSecretCheck(profile) : skip('webhook_secret', 'Webhook secret', NO_PROFILE));
  return results;
}

const SYMBOL = { ok: '✔', fail: '✖', warn: '!', skip: '!' } as const;

export async function run(f: Factory, options: DoctorOptions): Promise<void> {
  const results = await collectChecks(f);
  if (options.json) {
    await printJson(
      f.io,
      results.map((r) => ({
        check: r.check,
        ok: r.level === 'ok' || r.level === 'warn',
        level: r.level,
        detail: r.detail,
        fix: r.fix,
        trace_id: r.traceId ?? null,
      })),
    );
  } else {
    const c = new Chalk({ level: colorEnabled(f.io, 'stdout', f.globals().color === false) ? 1 : 0 });
    const paint = { ok: c.green, fail: c.red, warn: c.yellow, skip: c.dim } as const;
    // On a terminal a long check wraps 2 cells in under its symbol, never past the edge but
    // for a word wider than the terminal (a URL, a path), left whole from the left edge for
    // it to fold; a command in the fix is never split: one too wide for the room under the
    // text starts further left, one wider than the terminal is alone on its line from the
    // left edge. Where only ASCII is shown the text is made ASCII first (— is --), so it is
    // measured as shown.
    const shown = asciiOnly(f.io) ? asciiText : (text: string) => text;
    const dash = shown('—');
    const lines = results.map((r) => {
      const symbol = shown(SYMBOL[r.level]);
      const head = shown(`${SYMBOL[r.level]} ${r.label}:`);
      const text = shown(`${head} ${r.detail}${r.fix ? ` — fix: ${r.fix}` : ''}`);
      const parts = f.io.stdoutIsTTY ? wrapNote(text, f.io.columns, { hang: 2, whole: true }).split('\n') : [text];
      if (parts[0]!.startsWith(head)) parts[0] = `${paint[r.level](symbol)} ${c.bold(shown(r.label))}:${parts[0]!.slice(head.length)}`;
      return parts.map((l) => l.replace(` ${dash} fix:`, ` ${c.dim(dash)} fix:`)).join('\n');
    });
    await out(f.io, lines.join('\n') + '\n');
  }
  const failures = results.filter((r) => r.level === 'fail');
  if (failures.length > 0) {
    const first = failures[0]!;
    const error = new CliError(
      first.kind ?? 'unexpected',
      `doctor found ${failures.length} problem${failures.length > 1 ? 's' : ''}: ${failures.map((r) => r.label.toLowerCase()).join(', ')}`,
      options.json
        ? 'apply the fix of each check whose level is "fail", then run vouchers doctor again'
        : 'apply the fixes shown on the ✖ lines, then run vouchers doctor again',
    );
    // The trace ID of the failing request (the first failure's, else the first that has one): what support asks for.
    const traceId = first.traceId ?? failures.find((r) => r.traceId)?.traceId;
    throw traceId ? Object.assign(error, { traceId }) : error;
  }
}
