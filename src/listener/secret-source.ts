/**
 * Where a webhook signing secret comes from: `--secret` flags, else the profile's
 * webhook_secret (which VOUCHERS_WEBHOOK_SECRET overrides). Never printed.
 */
import { warnPlainSecret, WEBHOOK_SECRET_BETTER } from '../core/config/secret-flag.js';
import { envWebhookSecret } from '../core/config/resolve.js';
import { UsageError } from '../core/errors/index.js';
import { suggestedCommand } from '../core/output/next-page.js';
import type { Factory } from '../core/run/factory.js';
import { parseSecretFlags } from './flags.js';

export const NO_SECRET_HINT =
  'pass --secret whsec_…, set VOUCHERS_WEBHOOK_SECRET, or run vouchers listen --register to register a listener and save the secret in the profile';

/**
 * The secrets to use; throws a UsageError naming the sources when there is none. A secret
 * from `--secret` warns on stderr (not with `json`: there stderr carries only the JSON error).
 */
export async function resolveWebhookSecrets(
  f: Factory,
  flagValues: string | readonly string[] | undefined,
  options: { json?: boolean } = {},
): Promise<string[]> {
  const fromFlags = parseSecretFlags(typeof flagValues === 'string' ? [flagValues] : flagValues);
  if (fromFlags) {
    if (!options.json) warnPlainSecret(f.io, '--secret', WEBHOOK_SECRET_BETTER);
    return fromFlags;
  }
  const secret = await savedSecret(f, true);
  if (!secret) throw new UsageError('no webhook signing secret', NO_SECRET_HINT);
  return [secret];
}

/**
 * VOUCHERS_WEBHOOK_SECRET, else the profile's webhook_secret (the resolved profile ranks
 * them so); when the profile cannot be read, the variable alone, and that failure is thrown
 * only with `strict` when the variable is not set either.
 */
async function savedSecret(f: Factory, strict: boolean): Promise<string | undefined> {
  try {
    return (await f.profile()).webhook_secret;
  } catch (e) {
    const fromEnv = envWebhookSecret(f.io.env);
    if (strict && !fromEnv) throw e;
    return fromEnv;
  }
}

/**
 * The command that starts a listener here (storing into `inbox` when given): `vouchers
 * listen` where a webhook secret is saved (or set), else `vouchers listen --register`,
 * which gets one (listen alone exits 2).
 */
export async function startListenerCommand(f: Factory, inbox?: string): Promise<string> {
  const register = !(await savedSecret(f, false));
  return suggestedCommand(
    { profile: f.globals().profile },
    ['listen'],
    [
      ['--register', register],
      ['--inbox', inbox],
    ],
  );
}
