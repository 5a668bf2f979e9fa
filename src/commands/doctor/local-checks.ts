/** Checks that need no network: profile, credentials, base URL, file permissions, webhook secret. */
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { platform } from 'node:os';
import { baseUrlProblem, baseUrlWithScheme, redactUrl } from '../../core/config/base-url.js';
import { ENV, type ResolvedProfile, type ValueSource } from '../../core/config/types.js';
import { maskSecret } from '../../core/output/format.js';
import { fail, ok, skip, warn, type CheckResult } from './result.js';

const FROM: Record<ValueSource, string> = { flag: 'flag', env: 'environment', profile: 'profile', default: 'default' };

function nameOrigin(p: ResolvedProfile): string {
  switch (p.sources.name) {
    case 'flag':
      return 'from --profile';
    case 'env':
      return `from ${ENV.profile}`;
    case 'profile':
      return 'the current profile';
    default:
      return 'the default name';
  }
}

export function profileCheck(p: ResolvedProfile): CheckResult {
  const label = 'Profile';
  if (p.exists) return ok('profile', label, `"${p.name}" (${nameOrigin(p)})`);
  if (p.sources.api_key === 'env' && p.sources.api_secret === 'env') {
    return ok('profile', label, `"${p.name}" is not saved; credentials come from the environment`);
  }
  if (p.sources.name === 'profile') {
    return fail(
      'profile',
      label,
      `the current profile "${p.name}" no longer exists`,
      'pick another: vouchers profiles list shows them, vouchers profiles use switches to one',
      'usage',
    );
  }
  return fail(
    'profile',
    label,
    'no profile is configured',
    `vouchers profiles add NAME --base-url URL --api-key KEY (or run vouchers sandbox start), or set ${ENV.apiKey} and ${ENV.apiSecret}`,
    'usage',
  );
}

export function credentialsCheck(p: ResolvedProfile): CheckResult {
  const label = 'Credentials';
  const missing = [!p.api_key && 'API key', !p.api_secret && 'API secret'].filter(Boolean) as string[];
  if (missing.length > 0) {
    const fixes = [
      !p.api_key && (p.exists ? `vouchers profiles set ${p.name} api_key KEY` : `set ${ENV.apiKey}`),
      !p.api_secret && (p.exists ? `vouchers profiles set ${p.name} api_secret --stdin` : `set ${ENV.apiSecret}`),
    ].filter(Boolean);
    return fail('credentials', label, `no ${missing.join(' and ')}`, fixes.join('; '), 'usage');
  }
  return ok(
    'credentials',
    label,
    `API key ${maskSecret(p.api_key)} (${FROM[p.sources.api_key ?? 'default']}) and secret (${FROM[p.sources.api_secret ?? 'default']}) present`,
  );
}

export function baseUrlCheck(p: ResolvedProfile): CheckResult {
  const label = 'Base URL';
  const where = p.exists ? `vouchers profiles set ${p.name} base_url https://…/api/v1` : `set ${ENV.baseUrl} or pass --base-url`;
  if (!p.base_url) return fail('base_url', label, 'no base URL', where, 'usage');
  const problem = baseUrlProblem(p.base_url);
  if (problem) {
    const meant = baseUrlWithScheme(p.base_url);
    const source = p.sources.base_url;
    const fix = !meant
      ? where
      : source === 'flag'
        ? `pass --base-url ${meant}`
        : source === 'env' || !p.exists
          ? `set ${ENV.baseUrl} to ${meant}`
          : `vouchers profiles set ${p.name} base_url ${meant}`;
    return fail('base_url', label, `${JSON.stringify(redactUrl(p.base_url))} ${problem}`, fix, 'usage');
  }
  const from = FROM[p.sources.base_url ?? 'default'];
  const path = new URL(p.base_url).pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api/v1')) {
    // What is there of the prefix is completed, not added to: …/api/v2 → …/api/v1 (not
    // …/api/v2/api/v1), …/api → …/api/v1 (not …/api/api/v1), …/v1 → …/api/v1.
    const other = /\/api\/v\d+$/.test(path);
    const example = p.base_url.replace(/\/+$/, '').replace(/(?:\/api)?(?:\/v\d+)?$/, '/api/v1');
    return warn(
      'base_url',
      label,
      `${p.base_url} (${from}) does not end in /api/v1${other ? ', the version this CLI speaks' : ''}`,
      `the base URL should include the version prefix, e.g. ${example}`,
    );
  }
  if (p.production && p.base_url.startsWith('http:')) {
    return warn(
      'base_url',
      label,
      `${p.base_url} (${from}) is plain http on a production profile`,
      'use the https address issued at onboarding',
    );
  }
  return ok('base_url', label, `${p.base_url} (${from})`);
}

/** The profiles file should be 0600 (owner only) and its directory 0700. */
export function permissionsCheck(file: string | undefined, dir: string | undefined): CheckResult {
  const label = 'Config file permissions';
  if (platform() === 'win32') return skip('config_permissions', label, 'not checked on Windows');
  if (!file || !dir) return skip('config_permissions', label, 'the config file could not be opened');
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return unwritable(dir) ?? ok('config_permissions', label, `no config file yet (${file})`);
  }
  const octal = (m: number) => m.toString(8).padStart(3, '0');
  if ((mode & 0o077) !== 0) {
    return fail(
      'config_permissions',
      label,
      `${file} is ${octal(mode)}: other users can read your API secret`,
      `chmod 600 ${file}`,
      'usage',
    );
  }
  const refused = unwritable(dir);
  if (refused) return refused;
  let dirMode = 0o700;
  try {
    dirMode = statSync(dir).mode & 0o777;
  } catch {
    // the file exists, so the directory does too; nothing more to say
  }
  if ((dirMode & 0o022) !== 0) {
    return warn(
      'config_permissions',
      label,
      `${file} is ${octal(mode)}, but others may write to ${dir} (${octal(dirMode)})`,
      `chmod 700 ${dir}`,
    );
  }
  return ok('config_permissions', label, `${file} is ${octal(mode)}`);
}

/**
 * A warning when the config folder takes no new file (read-only, another owner's, a
 * read-only mount, for root too): profiles cannot be saved or changed there, and the request
 * log cannot be kept. Found by making a file there and removing it; nothing for a folder
 * not made yet (the first save makes it).
 */
function unwritable(dir: string): CheckResult | undefined {
  const probe = join(dir, `.vouchers-doctor-${process.pid}-${Date.now().toString(36)}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return undefined;
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'the file system is read-only' : code;
    return warn(
      'config_permissions',
      'Config file permissions',
      `${dir} takes no new files (${why}): profiles cannot be saved or changed there, and the request log is not kept`,
      `make ${dir} writable, or set ${ENV.configDir} to a folder you can write`,
    );
  }
  try {
    unlinkSync(probe);
  } catch {
    // made but not removed: the folder is writable all the same
  }
  return undefined;
}

export function webhookSecretCheck(p: ResolvedProfile): CheckResult {
  const label = 'Webhook secret';
  if (p.webhook_secret) return ok('webhook_secret', label, `present (${FROM[p.sources.webhook_secret ?? 'default']})`);
  const setIt = p.exists ? `vouchers profiles set ${p.name} webhook_secret --stdin` : `set ${ENV.webhookSecret}`;
  return warn(
    'webhook_secret',
    label,
    'not set: webhook deliveries cannot be verified',
    `vouchers webhooks register saves one (or: ${setIt})`,
  );
}
