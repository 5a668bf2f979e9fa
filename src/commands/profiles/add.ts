/** `vouchers profiles add NAME`: save a profile (secrets from a hidden prompt, stdin or env). */
import { redactUrl, validateBaseUrl } from '../../core/config/base-url.js';
import { insecureBaseUrlWarning } from '../../core/config/insecure-http.js';
import { validateProfileName } from '../../core/config/names.js';
import { parseMaxRetries } from '../../core/config/resolve.js';
import { credential, parsePositiveInt, parseSigningPath } from '../../core/config/settings.js';
import { ENV, type StoredProfile } from '../../core/config/types.js';
import { UsageError } from '../../core/errors/index.js';
import { parseDuration } from '../../core/http/duration.js';
import { err, noPrompt, type IO } from '../../core/io/io.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { inSentence, obtainSecret, warnPlainSecret } from './secret-input.js';
import type { ProfilesAddOptions } from './index.js';

export type { ProfilesAddOptions };

/** What a prompt asks for, in a sentence: "Base URL (including /api/v1)" is the base URL. */
function promptedFor(label: string): string {
  return inSentence(label.replace(/\s*\(.*\)$/, ''));
}

async function textValue(io: IO, given: string | undefined, envName: string, label: string, flag: string): Promise<string> {
  if (given !== undefined && given.trim() !== '') return given.trim();
  if (given !== undefined) throw new UsageError(`${flag} must not be empty`);
  const fromEnv = io.env[envName];
  if (fromEnv) {
    err(io, `Using the ${inSentence(label)} from ${envName}.\n`);
    return fromEnv;
  }
  if (noPrompt(io))
    throw new UsageError(
      `${flag} is required`,
      `e.g. vouchers profiles add sandbox --base-url https://sandbox.example.com/api/v1 --api-key KEY --api-secret-stdin`,
    );
  const { promptText } = await import('../../core/io/prompt.js');
  const answer = await promptText(io, label);
  if (answer === '') {
    // An empty line or Ctrl-D: the user is at a prompt, not writing flags.
    throw new UsageError(
      `no ${promptedFor(label)} given at the prompt: nothing was saved`,
      `type it at the prompt, or give it with ${flag}`,
    );
  }
  return answer;
}

function alreadyExists(name: string): UsageError {
  return new UsageError(
    `a profile named ${JSON.stringify(name)} already exists`,
    `replace it with --force, or change one setting: vouchers profiles set ${name} KEY VALUE`,
  );
}

export async function run(f: Factory, name: string, options: ProfilesAddOptions): Promise<void> {
  const io = f.io;
  // --base-url, --timeout and --max-retries are also root flags; commander gives them to the root.
  const g = f.globals();
  const opts: ProfilesAddOptions = {
    ...options,
    baseUrl: options.baseUrl ?? g.baseUrl,
    timeout: options.timeout ?? g.timeout,
    maxRetries: options.maxRetries ?? g.maxRetries,
  };

  // Said first: the secret is in the shell's history whether or not the profile is then added.
  if (opts.apiSecret !== undefined) warnPlainSecret(io, '--api-secret', `--api-secret-stdin or ${ENV.apiSecret}`);
  validateProfileName(name);
  const store = await f.config();
  if (store.get(name) !== undefined && !opts.force) throw alreadyExists(name);
  if (opts.apiSecretStdin && opts.webhookSecretStdin && !io.stdinIsTTY) {
    throw new UsageError(
      '--api-secret-stdin and --webhook-secret-stdin cannot both read one stdin',
      `add the profile with --api-secret-stdin, then: vouchers profiles set ${name} webhook_secret --stdin`,
    );
  }

  const profile: StoredProfile = {};
  if (opts.signingPath !== undefined) profile.signing = { path: parseSigningPath(opts.signingPath, '--signing-path') };
  if (opts.limitOrders !== undefined || opts.limitGeneral !== undefined) {
    profile.limits = {
      ...(opts.limitOrders !== undefined ? { orders_per_minute: parsePositiveInt(opts.limitOrders, '--limit-orders') } : {}),
      ...(opts.limitGeneral !== undefined ? { general_per_hour: parsePositiveInt(opts.limitGeneral, '--limit-general') } : {}),
    };
  }
  if (opts.timeout !== undefined) profile.timeout = parseDuration(opts.timeout, '--timeout');
  if (opts.maxRetries !== undefined) profile.max_retries = parseMaxRetries(opts.maxRetries, '--max-retries');
  if (opts.production) profile.production = true;
  if (opts.baseUrl !== undefined) validateBaseUrl(opts.baseUrl, '--base-url');

  profile.base_url = validateBaseUrl(
    await textValue(io, opts.baseUrl, ENV.baseUrl, 'Base URL (including /api/v1)', '--base-url'),
    // Where the value came from, as textValue took it: the flag, the environment, or the prompt.
    opts.baseUrl !== undefined ? '--base-url' : io.env[ENV.baseUrl] ? ENV.baseUrl : 'the prompt',
  );
  profile.api_key = credential(await textValue(io, opts.apiKey, ENV.apiKey, 'API key', '--api-key'), 'the API key');
  const apiSecret = await obtainSecret(io, {
    plain: opts.apiSecret,
    fromStdin: opts.apiSecretStdin,
    plainFlag: '--api-secret',
    stdinFlag: '--api-secret-stdin',
    envName: ENV.apiSecret,
    label: 'API secret',
    required: true,
    warned: true,
  });
  profile.api_secret = credential(apiSecret ?? '', 'the API secret');
  if (opts.webhookSecretStdin) {
    const webhookSecret = await obtainSecret(io, {
      fromStdin: true,
      plainFlag: '--webhook-secret',
      stdinFlag: '--webhook-secret-stdin',
      label: 'Webhook secret',
      required: true,
    });
    profile.webhook_secret = credential(webhookSecret ?? '', 'the webhook secret');
  }
  // The API document's base address includes /api/v1; the real service may differ, so this warns and saves.
  if (!/\/api\/v1$/.test(new URL(profile.base_url).pathname.replace(/\/+$/, ''))) {
    err(
      io,
      `Warning: the base URL ${redactUrl(profile.base_url)} does not end with /api/v1, which the API's base address includes; ` +
        `if requests answer 404, add it (vouchers profiles set ${shellQuote(name)} base_url URL); vouchers doctor checks it\n`,
    );
  }
  const insecure = insecureBaseUrlWarning(name, profile.base_url, shellQuote);
  if (insecure) err(io, insecure);
  else if (profile.production && profile.base_url.startsWith('http:')) {
    err(io, 'Warning: this production profile uses plain http; credentials would travel unencrypted\n');
  }

  // One locked write: whether it exists and which profile is current are read as it is saved.
  const { existed, makeCurrent } = store.update((c) => {
    const existed = c.get(name) !== undefined;
    if (existed && !opts.force) throw alreadyExists(name);
    c.set(name, profile);
    const current = c.currentName();
    const makeCurrent = opts.use || current === undefined || c.get(current) === undefined;
    if (makeCurrent) c.setCurrent(name);
    return { existed, makeCurrent };
  });
  err(
    io,
    `${existed ? 'Replaced' : 'Saved'} profile ${JSON.stringify(name)} in ${store.path}${makeCurrent ? ' (now the current profile)' : ''}.\n`,
  );
  if (!makeCurrent) err(io, `Use it with --profile ${name}, or make it the default: vouchers profiles use ${name}\n`);
  // Saved as given, unchecked: one command tells whether the server takes the key and secret.
  err(io, `Check it against the server (URL, credentials, clock): vouchers doctor${makeCurrent ? '' : ` --profile ${name}`}\n`);
}
