/**
 * `vouchers profiles set NAME KEY [VALUE]`: change one setting. Secrets (api_secret,
 * webhook_secret) come from --stdin or a hidden prompt; a plain VALUE works but warns.
 */
import { insecureBaseUrlWarning } from '../../core/config/insecure-http.js';
import { findSetting } from '../../core/config/settings.js';
import { UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { profileNotFound } from './not-found.js';
import { obtainSecret } from './secret-input.js';
import type { ProfilesSetOptions } from './index.js';

export type { ProfilesSetOptions };

export async function run(f: Factory, name: string, key: string, value: string | undefined, options: ProfilesSetOptions): Promise<void> {
  const def = findSetting(key);
  const store = await f.config();
  if (store.get(name) === undefined) throw profileNotFound(store, name);

  let text: string | undefined;
  if (def.secret) {
    text = await obtainSecret(f.io, {
      plain: value,
      fromStdin: options.stdin,
      plainFlag: `a plain ${key} value`,
      stdinFlag: '--stdin',
      label: key === 'api_secret' ? 'API secret' : key === 'admin_token' ? 'Sandbox admin token' : 'Webhook secret',
      required: true,
    });
  } else if (options.stdin) {
    if (value !== undefined) throw new UsageError('a VALUE and --stdin contradict each other', 'give one of them');
    const { readStdinSecret } = await import('../../core/io/prompt.js');
    text = await readStdinSecret(f.io, key);
  } else {
    text = value;
  }
  if (text === undefined) throw new UsageError(`no value for ${key}`, `e.g. vouchers profiles set ${name} ${key} VALUE`);

  const given = text;
  // Applied to the profile as it is when written, so a change another process made meanwhile stays.
  const saved = store.update((c) => {
    const now = c.get(name);
    if (now === undefined) throw profileNotFound(c, name);
    const next = def.apply(now, given);
    c.set(name, next);
    return next;
  });
  err(f.io, `Set ${key} of profile ${JSON.stringify(name)}.\n`);
  // As profiles add says it: a plain http:// address off this machine, not opted in.
  if (key === 'base_url' && saved.base_url !== undefined && saved.allow_insecure_http !== true) {
    const insecure = insecureBaseUrlWarning(name, saved.base_url, shellQuote);
    if (insecure) err(f.io, insecure);
  }
}
