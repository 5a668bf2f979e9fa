/** `vouchers listen`: flags → options, then run the listener until Ctrl-C. */
import { warnPlainSecret, WEBHOOK_SECRET_BETTER } from '../../core/config/secret-flag.js';
import { envWebhookSecret } from '../../core/config/resolve.js';
import type { ResolvedProfile } from '../../core/config/types.js';
import { UsageError } from '../../core/errors/index.js';
import { out } from '../../core/io/io.js';
import type { Factory } from '../../core/run/factory.js';
import { noticeFor } from '../../core/output/notice.js';
import { parseEventFilter, unknownEventTypesNote, type EventFilter } from '../../listener/filter.js';
import { lockInbox } from '../../listener/inbox-lock.js';
import { resolveInboxPath } from '../../listener/inbox-path.js';
import { parseForwardUrl, parseHeaderFlags, parseIntFlag, parseSecretFlags } from '../../listener/flags.js';
import { DEFAULT_FORWARD_POLICY, type ForwardPolicy } from '../../listener/forward.js';
import { NO_SECRET_HINT } from '../../listener/secret-source.js';
import { registrationUrl } from './register.js';
import type { ListenFlags } from './index.js';
import { DEFAULT_LISTEN_HOST, DEFAULT_LISTEN_PATH, DEFAULT_LISTEN_PORT, listenWithInbox } from './inbox-forward.js';

export interface ListenOptions {
  port: number;
  host: string;
  path: string;
  secrets: string[] | undefined;
  tolerance: number;
  filter: EventFilter;
  /** --events as given: repeated as --type in the replay commands suggested. */
  events: string | undefined;
  forwardTo: URL | undefined;
  forwardHeaders: Record<string, string>;
  forwardPolicy: ForwardPolicy;
  register: boolean;
  /** --yes: replace an endpoint that cannot be put back without asking. */
  yes: boolean;
  publicUrl: string | undefined;
  inbox: string | undefined;
  json: boolean;
  printSecret: boolean;
}

export function buildListenOptions(flags: ListenFlags): ListenOptions {
  const path = String(flags.path ?? DEFAULT_LISTEN_PATH);
  if (!path.startsWith('/') || /[?#\s]/.test(path))
    throw new UsageError(`--path ${JSON.stringify(path)} must be a path starting with /`, 'e.g. --path /webhooks');
  const host = String(flags.host ?? DEFAULT_LISTEN_HOST).trim();
  if (!host) throw new UsageError('--host is empty', 'e.g. --host 127.0.0.1');
  if (flags.publicUrl !== undefined && !flags.register) throw new UsageError('--public-url only makes sense with --register');
  if (flags.yes && !flags.register) throw new UsageError('--yes only makes sense with --register');
  if (flags.printSecret && flags.register)
    throw new UsageError(
      '--print-secret prints the saved secret and exits; it does not register',
      'run vouchers listen --register first (it saves the secret in the profile), then vouchers listen --print-secret',
    );
  const publicUrl = flags.publicUrl === undefined ? undefined : parseForwardUrl(String(flags.publicUrl), '--public-url').toString();
  return {
    port: parseIntFlag(flags.port ?? DEFAULT_LISTEN_PORT, '--port', 0, 65535),
    host,
    path,
    secrets: parseSecretFlags(flags.secret as string[] | undefined),
    tolerance: parseIntFlag(flags.tolerance ?? '300', '--tolerance', 0, 86_400),
    filter: parseEventFilter(flags.events as string | undefined),
    events: flags.events === undefined ? undefined : String(flags.events),
    forwardTo: flags.forwardTo === undefined ? undefined : parseForwardUrl(String(flags.forwardTo)),
    forwardHeaders: parseHeaderFlags(flags.forwardHeader as string[] | undefined),
    forwardPolicy: {
      ...DEFAULT_FORWARD_POLICY,
      maxRetries: parseIntFlag(flags.forwardRetries ?? DEFAULT_FORWARD_POLICY.maxRetries, '--forward-retries', 0, 20),
      timeoutMs: parseIntFlag(flags.forwardTimeout ?? DEFAULT_FORWARD_POLICY.timeoutMs / 1000, '--forward-timeout', 1, 600) * 1000,
    },
    register: Boolean(flags.register),
    yes: Boolean(flags.yes),
    publicUrl,
    inbox: flags.inbox === undefined ? undefined : String(flags.inbox),
    json: Boolean(flags.json),
    printSecret: Boolean(flags.printSecret),
  };
}

/** The profile; without --register a listener can also run on VOUCHERS_WEBHOOK_SECRET alone. */
async function loadProfile(f: Factory, required: boolean): Promise<ResolvedProfile | undefined> {
  try {
    return await f.profile();
  } catch (e) {
    if (required || !envWebhookSecret(f.io.env)) throw e;
    return undefined;
  }
}

export async function run(f: Factory, o: ListenOptions): Promise<void> {
  if (o.secrets) warnPlainSecret(f.io, '--secret', WEBHOOK_SECRET_BETTER);
  // A filter of what is shown and forwarded (--register registers every type, as before).
  const eventsNote = unknownEventTypesNote(o.events);
  if (eventsNote) noticeFor(f, 'UNKNOWN_FILTER_VALUE', eventsNote);
  const needsProfile = o.register || !o.secrets;
  const profile = needsProfile ? await loadProfile(f, o.register) : undefined;
  const fromProfile = profile?.webhook_secret ?? (profile ? undefined : envWebhookSecret(f.io.env));
  const secrets = o.secrets ?? (fromProfile ? [fromProfile] : []);
  if (secrets.length === 0 && !o.register) throw new UsageError('no webhook signing secret to verify deliveries with', NO_SECRET_HINT);
  if (o.printSecret) {
    // Asked for by name: the one place the secret is printed, alone on stdout for $(…).
    const [secret] = secrets;
    await out(f.io, o.json ? `${JSON.stringify({ webhook_secret: secret })}\n` : `${secret}\n`);
    return;
  }
  // Fail on a --register that cannot work before anything is opened.
  if (o.register) registrationUrl(profile?.base_url, o.publicUrl, () => '');

  const inboxPath = await resolveInboxPath(f, o.inbox);
  const locked = await lockInbox(inboxPath);
  if (!locked.ok) {
    throw new UsageError(
      `the inbox ${inboxPath} is in use by ${locked.holder}`,
      'stop that listener first, or give this one its own file with --inbox',
    );
  }
  if (locked.unlocked)
    noticeFor(
      f,
      'INBOX_NOT_LOCKED',
      `Warning: could not take the one-listener lock of the inbox ${inboxPath} (${locked.unlocked}); going on without it: run no other listener on this inbox.\n`,
    );
  try {
    await listenWithInbox(f, o, secrets, profile, inboxPath, locked.lock);
  } finally {
    await locked.lock.release();
  }
}
