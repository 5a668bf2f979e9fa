/**
 * `listen --register`: POST /webhooks with the listener's URL (or --public-url), and keep
 * the returned signing secret in the profile (when the credentials come from one). The
 * secret is never printed.
 */
import {
  endpointRecord,
  endpointUrlOf,
  getWebhook,
  registerWebhook,
  reRegisterWebhook,
  saysNoneRegistered,
  takeSecret,
} from '../../api/webhooks.js';
import { ApiError, UsageError } from '../../core/errors/index.js';
import { createClient } from '../../core/http/client.js';
import type { ApiClient } from '../../core/http/types.js';
import type { Factory } from '../../core/run/factory.js';
import { isLoopbackHost } from '../../core/net/loopback.js';
import { readFile, unlink } from 'node:fs/promises';
import { makeDirSync } from '../../core/io/make-dir.js';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../core/io/atomic-file.js';
import { isRecord } from '../../core/is-record.js';
import { setOwnField } from '../../core/own-field.js';
import { confirmOrStop } from '../orders/confirm.js';
import { redactUrl } from '../../core/config/base-url.js';
import { ENV } from '../../core/config/types.js';
import { suggestedCommand } from '../../core/output/next-page.js';

/** The URL to register: --public-url, or the listener's own when the API is on loopback. */
export function registrationUrl(baseUrl: string | undefined, publicUrl: string | undefined, ownUrl: () => string): string {
  if (publicUrl) return publicUrl;
  if (!baseUrl)
    throw new UsageError(
      '--register needs the API base URL of the profile',
      'run vouchers sandbox start (writes a "local" profile), or pass --base-url',
    );
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    throw new UsageError(`the profile's base URL ${JSON.stringify(baseUrl)} is not a URL`, 'fix it with vouchers profiles set');
  }
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `the API at ${host} cannot reach a listener on this machine`,
      'pass --public-url https://… (a tunnel to this listener) with --register',
    );
  }
  return ownUrl();
}

/** The endpoint registered before the listener took its place. */
export interface PreviousEndpoint {
  url: string;
  events: string[] | undefined;
}

export interface Registration {
  webhookId: string | undefined;
  url: string;
  /** The event types the endpoint delivers, as the API answered (undefined: not said). */
  events: string[] | undefined;
  /** The endpoint as it was, when it pointed elsewhere: put back when the listener stops. */
  previous: PreviousEndpoint | undefined;
  /** The server did not show the endpoint in a way this version reads: it is not put back. */
  previousUnknown: boolean;
  /** GET /webhooks showed an endpoint before registering: the server has that extension. */
  shownBefore: boolean;
  /**
   * The endpoint pointed at a listener that stopped without putting it back (killed): the
   * one that listener had replaced, from the note it left, is put back instead.
   */
  inherited: boolean;
  /** The endpoint's signing secret was rotated to get one (the app it pointed at needs the new one). */
  rotated: boolean;
  /** The signing secret now in force; undefined when the API returned none and none was known. */
  secret: string | undefined;
  /**
   * The secrets the answer listed when it listed several without saying which one signs
   * (none saved): the listener verifies with each.
   */
  candidates: string[] | undefined;
  /** Whether a new secret was saved in the profile. */
  saved: boolean;
  profile: string;
}

/**
 * The registered endpoint; undefined when there is none; 'unknown' when the server answered
 * otherwise or in a shape that names no URL: then it cannot be put back. A 404 says "none"
 * when its error code says so (WEBHOOK_NOT_REGISTERED, saysNoneRegistered), and a plain one
 * only from our own sandbox (`ownSandbox`: a profile with its operator surface, as certify
 * takes it): GET /webhooks is an extension, and a server without it answers 404 too, which
 * says nothing of an endpoint it may hold.
 */
async function currentEndpoint(
  client: ApiClient,
  signal: AbortSignal,
  ownSandbox: boolean,
): Promise<PreviousEndpoint | 'unknown' | undefined> {
  try {
    const found = endpointRecord((await getWebhook(client, { signal, probe: true })).data);
    const url = found ? endpointUrlOf(found) : undefined;
    if (!found || url === undefined) return 'unknown';
    return {
      url,
      events: Array.isArray(found.events) ? (found.events as unknown[]).filter((e): e is string => typeof e === 'string') : undefined,
    };
  } catch (e) {
    if (saysNoneRegistered(e) || (e instanceof ApiError && e.status === 404 && ownSandbox)) return undefined;
    if (e instanceof ApiError) return 'unknown';
    throw e;
  }
}

/**
 * `listen --register` notes, per server (its base URL), the URL it registered and the
 * endpoint it replaced, in the config folder (mode 0600), until it has put that endpoint
 * back. A listener killed before that leaves the note: the next one finds the endpoint
 * pointing at the registered URL and puts back the endpoint of the note, not the dead URL.
 */
const NOTES_FILE = 'listen-endpoints.json';

interface EndpointNote {
  registered: string;
  previous: PreviousEndpoint;
}

async function notesPath(f: Factory): Promise<string> {
  return join((await f.config()).dir, NOTES_FILE);
}

async function readNotes(path: string): Promise<Record<string, EndpointNote>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    const notes: Record<string, EndpointNote> = {};
    if (isRecord(parsed))
      for (const [server, n] of Object.entries(parsed))
        if (isRecord(n) && typeof n.registered === 'string' && isRecord(n.previous) && typeof n.previous.url === 'string')
          setOwnField(notes, server, {
            registered: n.registered,
            previous: {
              url: n.previous.url,
              events: Array.isArray(n.previous.events) ? n.previous.events.filter((e) => typeof e === 'string') : undefined,
            },
          });
    return notes;
  } catch {
    // None yet, or unreadable: nothing noted (the endpoint as the server shows it is used).
    return {};
  }
}

async function writeNotes(path: string, notes: Record<string, EndpointNote>): Promise<void> {
  if (Object.keys(notes).length === 0) {
    await unlink(path).catch(() => undefined);
    return;
  }
  try {
    makeDirSync(dirname(path), 0o700);
    await writeFileAtomic(path, JSON.stringify(notes, null, 2) + '\n', { mode: 0o600 });
  } catch {
    // Without the note only the recovery after a killed listener is lost: this listener still
    // puts the endpoint back when it stops, and printed the command that does it by hand.
  }
}

/** The endpoint was put back: forget the note. Never throws (a note left behind names an endpoint already put back, which the next listener finds pointing elsewhere and ignores). */
export async function forgetEndpointNote(f: Factory, server: string): Promise<void> {
  try {
    const path = await notesPath(f);
    const notes = await readNotes(path);
    if (!Object.hasOwn(notes, server)) return;
    delete notes[server];
    await writeNotes(path, notes);
  } catch {
    // See above.
  }
}

/**
 * Register the listener's URL. When the server does not show the endpoint registered now
 * (GET /webhooks is not in the document, so a real service may answer 404), registering
 * replaces it with no way to put it back when the listener stops: that is confirmed first
 * (`yes`, or y on a terminal), before anything is sent.
 */
export async function registerListener(f: Factory, url: string, knownSecrets: readonly string[], yes = false): Promise<Registration> {
  const client = await f.client();
  const own = await f.profile();
  const looked = await currentEndpoint(client, f.io.signal, Boolean(own.admin_url && own.admin_token));
  if (looked === 'unknown')
    await confirmOrStop(f.io, {
      yes,
      question: `This server does not show which webhook endpoint is registered now (GET /webhooks), so it cannot be put back when this listener stops. Point it at ${redactUrl(url)} anyway?`,
      reason:
        'registering replaces the webhook endpoint, and this server does not show which one is registered now (GET /webhooks), so it could not be put back when the listener stops',
      undone: 'nothing was registered',
    });
  const shown = looked === 'unknown' ? undefined : looked;
  const server = own.base_url ?? '';
  const path = await notesPath(f);
  const notes = await readNotes(path);
  const note = Object.hasOwn(notes, server) ? notes[server] : undefined;
  // Pointing at the URL a killed listener registered: the endpoint it replaced is the one to put back.
  const inherited = note !== undefined && shown !== undefined && shown.url === note.registered;
  const before = inherited ? note.previous : shown;
  let res = await registerWebhook(client, { url }, { signal: f.io.signal });
  let candidates = candidatesOf(res.data);
  // An existing endpoint answers 200 without a secret; when none is known here, rotate to get one.
  let rotated = false;
  if (!res.data?.signing_secret && candidates === undefined && knownSecrets.length === 0) {
    // From here the endpoint points at this listener: any failure puts back the one it
    // replaced (with a client of its own: Ctrl-C may be what failed) before it is told.
    try {
      res = await registerWebhook(client, { url, rotate_secret: true }, { signal: f.io.signal });
      candidates = candidatesOf(res.data);
      rotated = before !== undefined;
      if (!res.data?.signing_secret && candidates === undefined) throw NO_SECRET;
    } catch (e) {
      const where = await putBack(f, url, before !== undefined && before.url !== url ? before : undefined, server);
      if (e !== NO_SECRET) throw e;
      throw new UsageError(
        `the API registered this listener without a signing secret, also when asked for a new one (rotate_secret), so no delivery could be verified; ${where}` +
          (rotated && where.startsWith('the endpoint was put back')
            ? ' (if the server did rotate its secret, the app there needs the new one: ask the provider)'
            : ''),
        `give this listener the endpoint's signing secret and run it again: --secret whsec_…, ${ENV.webhookSecret}, or the profile's webhook_secret (vouchers profiles set ${own.name} webhook_secret --stdin)`,
      );
    }
  }
  const profile = await f.profile();
  const secret = res.data?.signing_secret;
  let saved = false;
  if (secret) {
    // Saved into the profile the credentials came from. With credentials from the
    // environment alone there is none: the listener keeps the secret in memory rather than
    // creating a profile that holds nothing but it.
    const store = await f.config();
    saved = store.update((c) => {
      const stored = c.get(profile.name);
      if (stored) c.set(profile.name, { ...stored, webhook_secret: secret });
      return stored !== undefined;
    });
  }
  const events = Array.isArray(res.data?.events)
    ? (res.data.events as unknown[]).filter((e): e is string => typeof e === 'string')
    : undefined;
  const now = res.data?.url ?? url;
  const previous = before && before.url !== now ? before : undefined;
  if (previous) notes[server] = { registered: now, previous };
  else delete notes[server];
  await writeNotes(path, notes);
  return {
    webhookId: res.data?.webhook_id,
    url: now,
    events,
    previous,
    previousUnknown: looked === 'unknown',
    shownBefore: shown !== undefined,
    inherited: inherited && previous !== undefined,
    rotated,
    secret,
    candidates,
    saved,
    profile: profile.name,
  };
}

/** Thrown within registerListener when even a rotation brought no signing secret. */
const NO_SECRET = Symbol('no signing secret');

/**
 * Put back the endpoint a registration replaced, after it failed (and forget the note of a
 * killed listener's, now put back); what became of the endpoint, for the error.
 */
async function putBack(f: Factory, url: string, previous: PreviousEndpoint | undefined, server: string): Promise<string> {
  if (previous === undefined)
    return `the endpoint still points at ${redactUrl(url)}, where no listener runs now: remove it with ${suggestedCommand(f.globals(), ['webhooks', 'delete'])}, or register your app's URL again`;
  try {
    await restoreEndpoint(f, previous);
    await forgetEndpointNote(f, server);
    return `the endpoint was put back to ${redactUrl(previous.url)}`;
  } catch (e) {
    return `the endpoint could not be put back to ${redactUrl(previous.url)} (${(e as Error).message}): run ${restoreCommand(f, previous)}`;
  }
}

/** The command that points the endpoint back at `previous`, for when the listener cannot. */
export function restoreCommand(f: Factory, previous: PreviousEndpoint): string {
  return suggestedCommand(
    f.globals(),
    ['webhooks', 'register'],
    [
      // A password in the URL is not printed: given back as *** to be filled in.
      ['--url', redactUrl(previous.url)],
      ['--events', previous.events?.length ? previous.events.join(',') : undefined],
    ],
  );
}

/** The secrets of an answer without `signing_secret` that lists several without saying which one signs (takeSecret). */
function candidatesOf(data: unknown): string[] | undefined {
  if (!isRecord(data) || typeof data.signing_secret === 'string') return undefined;
  return takeSecret(endpointRecord(data) ?? data).candidates;
}

/**
 * A client for the requests a listener makes as it stops: of its own, since the command's is
 * aborted by the Ctrl-C that stopped the listener, and these must still go out.
 */
async function stopClient(f: Factory): Promise<{ client: ApiClient; ownSandbox: boolean }> {
  const profile = await f.profile();
  const client = createClient({
    baseUrl: profile.base_url!,
    apiKey: profile.api_key!,
    apiSecret: profile.api_secret!,
    signingPath: profile.signing_path,
    limits: null,
    maxRetries: 2,
    clock: f.clock,
    ids: f.ids,
  });
  return { client, ownSandbox: Boolean(profile.admin_url && profile.admin_token) };
}

/** How long a stopping listener waits to be shown the endpoint before putting it back regardless. */
const STOP_LOOKUP_MS = 10_000;

/**
 * Where the endpoint points as the listener stops (undefined: there is none), or 'unknown'
 * when the server does not show it or does not answer: registered again or removed while the
 * listener ran, it is left as whoever did that made it. `shownBefore`: GET /webhooks showed
 * the endpoint when the listener registered, so this server has it, and its 404 says "none".
 */
export async function endpointAtStop(f: Factory, shownBefore: boolean): Promise<PreviousEndpoint | 'unknown' | undefined> {
  const { client, ownSandbox } = await stopClient(f);
  try {
    return await currentEndpoint(client, AbortSignal.timeout(STOP_LOOKUP_MS), ownSandbox || shownBefore);
  } catch {
    return 'unknown';
  } finally {
    await client.close();
  }
}

/** Point the endpoint back where it was before the listener registered itself (its event types too). */
export async function restoreEndpoint(f: Factory, previous: PreviousEndpoint): Promise<void> {
  const { client } = await stopClient(f);
  try {
    await reRegisterWebhook(client, previous);
  } finally {
    await client.close();
  }
}
