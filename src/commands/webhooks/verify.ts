/**
 * `vouchers webhooks verify`: the listener's verification, offline, on a saved body and the
 * headers it came with. "valid" (exit 0), or the code and reason the listener refuses it with
 * (exit 5, request rejected).
 */
import { CliError, UsageError } from '../../core/errors/index.js';
import { out } from '../../core/io/io.js';
import { printJson } from '../../core/output/print.js';
import { ERRORS } from '../../contract/errors.js';
import { MAX_BODY_BYTES } from '../../core/net/request-body.js';
import { SignatureError } from '../../core/signer/errors.js';
import { missingStandardHeaders, verifyWebhookDelivery, WEBHOOK_HEADERS } from '../../core/signer/webhook.js';
import type { Factory } from '../../core/run/factory.js';
import { readBodyFlag } from '../../listener/body-file.js';
import { envelopeOf } from '../../listener/envelope.js';
import { parseHeaderFlags, parseIntFlag, parseSecretFlags } from '../../listener/flags.js';
import { rejection, type Rejection, type RejectionReason } from '../../listener/reject.js';
import { resolveWebhookSecrets } from '../../listener/secret-source.js';
import type { WebhooksVerifyFlags } from './index.js';
import { parseSavedDelivery } from './saved-delivery.js';

export interface VerifyOptions {
  /** --body: the body file, or - for stdin; undefined when the --headers file holds the body. */
  body: string | undefined;
  /** --headers: a file of the delivery's headers, maybe a whole saved request. */
  headersFile: string | undefined;
  /** --header and --signature (as X-Webhook-Signature), lower-case names: over those of the file. */
  headers: Record<string, string>;
  /** --path: the path the delivery was posted to. */
  path: string | undefined;
  secrets: string[] | undefined;
  tolerance: number;
  json: boolean;
}

/** The path a delivery is taken to be posted to when neither --path nor a request line names one: listen's default. */
const DEFAULT_PATH = '/webhooks';

/**
 * A delivery the listener would refuse: exit 5, with the code and reason the listener
 * answers it with (REJECTION_CODES), so a script reads the same words from both.
 */
export class WebhookVerificationError extends CliError {
  constructor(
    readonly rejection: Rejection,
    hint?: string,
  ) {
    super('rejected', `invalid: ${rejection.message}`, hint);
    this.name = ERRORS[rejection.code].name;
    this.withJsonFields({ reason: rejection.reason, status: rejection.status });
  }
  override get code(): string {
    return this.rejection.code;
  }
}

/** What --signature takes, and where it comes from. */
const HEADER_HINT =
  'pass --signature the value of the X-Webhook-Signature header your endpoint received with this body, as it came and without the header name: "t=<unix seconds>,v1=<hex>" (one v1= per signing secret), e.g. "t=1732270000,v1=5f0c…"; or the headers as received, with --header "Name: value" (repeatable: a Standard Webhooks delivery has webhook-id, webhook-timestamp and webhook-signature) or --headers FILE; vouchers webhooks sign makes one for a body of your own';

/**
 * Why no signature matches, when the body is the one received: another secret, most often
 * the previous one of a rotation (the listener takes up a new one saved in the profile; a
 * delivery signed before carries only the old secret's signature).
 */
const NO_MATCH_HINT =
  'use the body file exactly as received (no reformatting, same line endings) and the secret of the endpoint that sent it; ' +
  'its signing secret may have been rotated since (webhooks register --rotate-secret, or the endpoint created again): ' +
  "a delivery signed before carries only the previous secret's signature, so check with that one too (--secret once for each, " +
  'current and previous)';

/**
 * The hint for a header refusal of a delivery signed the Standard Webhooks way: what is
 * missing first (to pass as received, or for the sender to add), not --signature, which is
 * X-Webhook-Signature's.
 */
function standardHeadersHint(missing: readonly string[]): string {
  if (missing.length === 0)
    return (
      'pass webhook-id, webhook-timestamp and webhook-signature exactly as received (--header "Name: value" each, or --headers FILE): ' +
      'webhook-timestamp in unix seconds, webhook-signature one or more "v1,<base64>" entries separated by spaces'
    );
  const names = missing.join(' and ');
  return (
    `pass the ${names} header${missing.length === 1 ? '' : 's'} the delivery came with (--header "${missing[0]}: …", or --headers FILE); ` +
    `if it came without, the sender must add ${missing.length === 1 ? 'it' : 'them'}: the Standard Webhooks scheme signs with ` +
    'webhook-id, webhook-timestamp and webhook-signature together (a proxy may also strip headers)'
  );
}

const HINTS: Partial<Record<RejectionReason, string>> = {
  malformed_header: HEADER_HINT,
  missing_header: HEADER_HINT,
  timestamp_in_future: "check this machine's clock, or pass a larger --tolerance",
  no_match: NO_MATCH_HINT,
};

/** Seconds either way that let a signature be checked whatever its age. */
const ANY_AGE = Number.MAX_SAFE_INTEGER;

/** At most this many line endings after a body are taken off to look for the one signed. */
const MAX_ADDED_LINE_ENDINGS = 4;

/**
 * The body without its last line ending, then without the one before it, and so on (CRLF,
 * LF or CR each): an editor or `echo` adds one to a body saved to a file.
 */
function withoutTrailingLineEndings(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let end = body.length;
  while (out.length < MAX_ADDED_LINE_ENDINGS && end > 0) {
    const last = body[end - 1];
    if (last === 0x0a) end -= end >= 2 && body[end - 2] === 0x0d ? 2 : 1;
    else if (last === 0x0d) end -= 1;
    else break;
    out.push(body.subarray(0, end));
  }
  return out;
}

function isWindow(reason: RejectionReason): boolean {
  return reason === 'timestamp_too_old' || reason === 'timestamp_in_future';
}

/**
 * The refusal of a delivery `verify` failed on, saying everything an offline check can:
 * a delivery out of the window has its signature checked all the same (a mismatch is the
 * worse finding, and the refusal then), and a body no signature matches is checked without
 * the line endings an editor may have added after it (still refused: the bytes differ).
 * `check` verifies a body whatever its timestamp's age and returns the signed timestamp.
 */
function refusal(
  failure: SignatureError,
  body: Buffer,
  check: (body: Buffer) => number,
  now: number,
  standardMissing: readonly string[] | undefined,
): WebhookVerificationError {
  let error = failure;
  if (isWindow(failure.reason)) {
    try {
      const t = check(body);
      const hint =
        failure.reason === 'timestamp_too_old'
          ? `the listener refuses it only for its age; pass --tolerance ${now - t} or more to check the rest of it as received`
          : HINTS[failure.reason];
      return new WebhookVerificationError(
        rejection(failure.reason, `${failure.message} The signature matches: it was signed with this secret.`),
        hint,
      ).withJsonFields({ signature_matches: true });
    } catch (e) {
      if (!(e instanceof SignatureError)) throw e;
      error = e;
    }
  }
  let message = error.message;
  let hint =
    standardMissing !== undefined && (error.reason === 'missing_header' || error.reason === 'malformed_header')
      ? standardHeadersHint(standardMissing)
      : HINTS[error.reason];
  let added: string | undefined;
  if (error.reason === 'no_match') {
    const signed = withoutTrailingLineEndings(body).find((b) => {
      try {
        check(b);
        return true;
      } catch (e) {
        if (e instanceof SignatureError) return false;
        throw e;
      }
    });
    if (signed !== undefined) {
      added = body.subarray(signed.length).toString('latin1');
      message =
        `no signature matches this body, but one matches it without its trailing ${JSON.stringify(added)} ` +
        `(${added.length} byte${added.length === 1 ? '' : 's'}): the file ends with a line ending the delivery did not have, ` +
        'and the bytes as received are what is signed';
      hint =
        "save the body exactly as received, with no line ending added after it (printf '%s' rather than echo; an editor set not to add a final newline)";
    }
  }
  if (error !== failure) message += `${/[.?]$/.test(message) ? '' : '.'} Its timestamp is out of the window too: ${failure.message}`;
  return new WebhookVerificationError(rejection(error.reason, message), hint).withJsonFields({
    ...(error !== failure ? { signature_matches: false, timestamp_reason: failure.reason } : {}),
    ...(added !== undefined ? { matches_without_trailing: added } : {}),
  });
}

export function buildVerifyOptions(flags: WebhooksVerifyFlags): VerifyOptions {
  const headers = parseHeaderFlags(flags.header as string[] | undefined, '--header', 'X-Webhook-Signature: t=1732270000,v1=5f0c…');
  if (flags.signature !== undefined) headers[WEBHOOK_HEADERS.signature] = String(flags.signature);
  const headersFile = flags.headers === undefined ? undefined : String(flags.headers);
  if (headersFile === undefined && Object.keys(headers).length === 0)
    throw new UsageError('no header of the delivery given: nothing says how it was signed', HEADER_HINT);
  if (flags.body === undefined && headersFile === undefined)
    throw new UsageError(
      'no body given',
      'pass --body FILE (- for stdin): the raw body exactly as received, or --headers FILE holding the whole saved request',
    );
  if (flags.body === '-' && headersFile === '-')
    throw new UsageError('--body and --headers cannot both be read from stdin', 'save one of them to a file');
  const path = flags.path === undefined ? undefined : String(flags.path).trim();
  if (path !== undefined && !path.startsWith('/'))
    throw new UsageError(
      `--path ${JSON.stringify(path)} is not a path`,
      `the path the delivery was posted to, e.g. --path ${DEFAULT_PATH}`,
    );
  return {
    body: flags.body === undefined ? undefined : String(flags.body),
    headersFile,
    headers,
    path,
    secrets: parseSecretFlags(flags.secret as string[] | undefined),
    tolerance: parseIntFlag(flags.tolerance ?? '300', '--tolerance', 0, 10 * 365 * 86_400),
    json: Boolean(flags.json),
  };
}

/** The delivery to check: its body, its headers (the flags' over the file's) and the path it was posted to. */
async function deliveryOf(f: Factory, o: VerifyOptions): Promise<{ body: Buffer; headers: Record<string, string>; path: string }> {
  const saved =
    o.headersFile === undefined ? undefined : parseSavedDelivery(await readBodyFlag(f.io, o.headersFile, '--headers'), '--headers');
  if (o.body !== undefined && saved?.body !== undefined)
    throw new UsageError(
      `--headers ${o.headersFile} holds a body after its headers, and --body gives one too`,
      'give the body once: without --body the one saved after the headers is checked',
    );
  const body = o.body !== undefined ? await readBodyFlag(f.io, o.body) : saved?.body;
  if (body === undefined)
    throw new UsageError(
      `--headers ${o.headersFile} holds no body after its headers`,
      'pass --body FILE, or save the raw body after a blank line below the headers',
    );
  return { body, headers: { ...saved?.headers, ...o.headers }, path: o.path ?? saved?.path ?? DEFAULT_PATH };
}

export async function run(f: Factory, o: VerifyOptions): Promise<void> {
  const { body, headers, path } = await deliveryOf(f, o);
  // Refused before it is read, by the listener as here.
  if (body.length > MAX_BODY_BYTES)
    throw new WebhookVerificationError(rejection('too_large', `body of ${body.length} bytes is over the ${MAX_BODY_BYTES}-byte limit`));
  const secrets = await resolveWebhookSecrets(f, o.secrets, { json: o.json });
  let timestamp: number;
  let scheme: string | null = null;
  const nowSeconds = Math.floor(f.clock.now() / 1000);
  const verify = (b: Buffer, tolerance: number): number =>
    verifyWebhookDelivery(b, headers, secrets, { tolerance, nowSeconds, path, onScheme: (s) => (scheme = s) });
  try {
    timestamp = verify(body, o.tolerance);
  } catch (e) {
    if (e instanceof SignatureError) throw refusal(e, body, (b) => verify(b, ANY_AGE), nowSeconds, missingStandardHeaders(headers));
    throw e;
  }
  const parsed = envelopeOf(body.toString('utf8'));
  if (!parsed.ok) throw new WebhookVerificationError(parsed.rejection);
  const event = parsed.json as { event: string; event_id: string };
  const age = Math.floor(f.clock.now() / 1000) - timestamp;
  if (o.json) {
    await printJson(f.io, {
      valid: true,
      timestamp,
      age_seconds: age,
      event: event.event,
      event_id: event.event_id,
      scheme,
    });
    return;
  }
  const what = ` (${event.event} ${event.event_id})`;
  const how = scheme === null ? '' : `; signed as ${String(scheme)}`;
  await out(f.io, `valid: signed at ${timestamp}, ${age >= 0 ? `${age} s ago` : `${-age} s in the future`}${what}${how}\n`);
}
