/**
 * Where a webhook signing secret comes from: `--secret` flags, else the profile's
 * webhook_secret (which VOUCHERS_WEBHOOK_SECRET overrides). Never printed.
 */
import { warnPlainSecret, WEBHOOK_SECRET_BETTER } from '../core/config/secret-flag.js';
import { ENV } from '../core/config/types.js';
import { UsageError } from '../core/errors/index.js';
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
  const fromEnv = f.io.env[ENV.webhookSecret];
  let fromProfile: string | undefined;
  try {
    fromProfile = (await f.profile()).webhook_secret;
  } catch (e) {
    if (!fromEnv) throw e;
  }
  const secret = fromProfile ?? fromEnv;
  if (!secret) throw new UsageError('no webhook signing secret', NO_SECRET_HINT);
  return [secret];
}
