/** `vouchers payouts create`: POST /payouts (signed, idempotent). */
import { amountValue, toMinor } from '../../contract/money-format.js';
import { notice } from '../../core/output/notice.js';
import { createPayout, locatedPayoutId } from '../../api/payouts.js';
import { listWallets } from '../../api/wallets.js';
import type { CreatePayoutRequest, Payout, Wallet } from '../../contract/money.js';
import type { ApiClient } from '../../core/http/types.js';
import { ApiError, CliError, faultAfterWrite, InterruptedError, NetworkError, QueryRunError } from '../../core/errors/index.js';
import { ContractMismatchError } from '../../core/http/validate.js';
import { refuseSecretAsKey } from '../../core/http/secret-key.js';
import { answerShown, err } from '../../core/io/io.js';
import { formatMoney, formatTime, styleStatus } from '../../core/output/format.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { handleFieldsFlag, printRecord, type RecordField } from '../../core/output/print.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { checkIdempotencyKey, payoutRequest } from './request.js';
import { confirmOrStop, productionQuestion, productionReason } from '../orders/confirm.js';
import { keyLine } from '../orders/hint.js';
import type { PayoutsCreateOptions } from './index.js';
import { noticeFor } from '../../core/output/notice.js';
import { suggestedCommand } from '../../core/output/next-page.js';

export type { PayoutsCreateOptions };

function fieldsOf(p: Payout, key: string): RecordField[] {
  return [
    { label: 'payout_id', value: p.payout_id },
    { label: 'status', value: p.status, style: styleStatus },
    { label: 'amount', value: formatMoney(p.amount, p.currency) },
    { label: 'reference', value: p.reference ?? '' },
    { label: 'created_at', value: formatTime(p.created_at) },
    { label: 'idempotency_key', value: key },
  ];
}

/** Failures after which the same key should be retried (the outcome is unknown or transient). */
function mayHaveReachedServer(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  // Ctrl-C with the request in flight (it carries the trace ID of what was sent).
  if (error instanceof InterruptedError) return error.traceId !== undefined;
  return (
    error instanceof ApiError &&
    (error.status >= 500 || error.status === 429 || error.apiCode === 'IDEMPOTENCY_KEY_IN_PROGRESS' || error.earlierMayHaveReached)
  );
}

/**
 * INSUFFICIENT_FUNDS on a payout: the partner API's hint ("order less") is about orders.
 * Say whether there is a wallet in that currency at all (GET /wallets), and what to do.
 */
async function insufficientFunds(f: Factory, client: ApiClient, error: ApiError, request: CreatePayoutRequest): Promise<ApiError> {
  const { currency } = request;
  let wallets: Wallet[] | undefined;
  try {
    wallets = (await listWallets(client, { signal: f.io.signal })).data.data;
  } catch (e) {
    if (f.io.signal.aborted) throw e; // Ctrl-C: interrupted (130), not a rejected payout
    wallets = undefined; // the hint below then covers both cases
  }
  const wallet = wallets?.find((w) => w.currency === currency);
  const others = wallets?.map((w) => w.currency).join(', ');
  const hint =
    wallets === undefined
      ? `there is no ${currency} wallet, or it holds less than ${formatMoney(request.amount, currency)}: see your wallets and balances with vouchers wallets list`
      : wallet === undefined
        ? `you have no ${currency} wallet, so nothing can be paid out in ${currency}${others ? ` (your wallets: ${others})` : ''}: see them with vouchers wallets list`
        : `the ${currency} wallet has ${formatMoney(wallet.available, currency)} available: pay out at most that (vouchers wallets list shows the balances)`;
  return error.withHint(hint);
}

const FIELDS = ['payout_id', 'status', 'amount', 'currency', 'reference', 'created_at', 'idempotency_key'];

export async function run(f: Factory, options: PayoutsCreateOptions): Promise<void> {
  const request = payoutRequest(options);
  const key = options.idempotencyKey !== undefined ? checkIdempotencyKey(options.idempotencyKey) : f.ids.idempotencyKey();
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  // Before the payout, as orders create: only the fields this version knows, so a typo is a
  // usage error before money moves, never after (one the answer lacks then prints empty).
  if (await handleFieldsFlag(f.io, settings, FIELDS)) return;
  const profile = await f.profile();
  // Before the key is printed below: a pasted secret is neither shown nor sent.
  refuseSecretAsKey(key, profile.api_secret);
  const money = formatMoney(request.amount, request.currency);
  if (profile.production) {
    await confirmOrStop(f.io, {
      yes: Boolean(options.yes),
      question: productionQuestion(profile.name, `pay out ${money} from the ${request.currency} wallet to the account on file,`),
      reason: `${productionReason(profile)}: a payout of ${money} needs confirmation`,
      undone: 'no payout was made',
    });
  }
  const client = await f.client();
  // As orders create says it: the key, and the retry it makes safe.
  noticeFor(f, 'IDEMPOTENCY_KEY', keyLine(key, options.idempotencyKey !== undefined, 'payout'));
  let res;
  try {
    res = await createPayout(client, request, {
      idempotencyKey: key,
      keyGiven: options.idempotencyKey !== undefined,
      showsAnswer: true,
      signal: f.io.signal,
    });
  } catch (thrown) {
    let error = thrown;
    // Refused on a retry, after an attempt whose answer was lost: that attempt may have made
    // the payout (and spent the funds this refusal is about), so the retry is the way on.
    if (error instanceof ApiError && error.earlierMayHaveReached && error.status < 500 && error.status !== 429)
      error = error.withHint(
        `an earlier attempt of this payout got no answer and may have made it: before paying out again, look for it in ${suggestedCommand(f.globals(), ['transactions', 'list'])}, or retry it with its key (the command above)`,
      );
    else if (error instanceof ApiError && error.apiCode === 'INSUFFICIENT_FUNDS') throw await insufficientFunds(f, client, error, request);
    if (error instanceof ContractMismatchError && error.executed) {
      // --strict-contract: the payout was made; say so before anything else.
      // Its id from the body, or else from the Location header of an answer whose body names none.
      const body = (error.body ?? {}) as Record<string, unknown>;
      const named = body.payout_id ?? body.id;
      const located = typeof named === 'string' ? undefined : locatedPayoutId(error.location?.path);
      const id = typeof named === 'string' ? named : located;
      throw new ContractMismatchError(
        `the payout${id === undefined ? '' : ` ${id}`}${located === undefined ? '' : " (named by the answer's Location header)"} of ${money} was made; ${error.message}`,
        error.traceId,
        error.issues,
        true,
        error.body,
        key,
        undefined,
        error.location,
      ).withJsonFields({ payout_id: id, idempotency_key: key });
    }
    if (mayHaveReachedServer(error)) {
      // The same profile (a key unknown to another one pays again), every word quoted for the shell.
      const retry = suggestedCommand(
        f.globals(),
        ['payouts', 'create'],
        [
          ['--amount', String(request.amount)],
          ['--currency', request.currency],
          ['--reference', request.reference],
          ['--idempotency-key', key],
        ],
      );
      notice(f.io, settings, 'RETRY', `To retry safely (the payout is made at most once): ${retry}`);
      if (error instanceof CliError) error.withJsonFields({ idempotency_key: key });
    }
    throw error;
  }
  // Any 2xx is a payout made, whatever its body: a server's own field names are shown as they are.
  const body = (res.data !== null && typeof res.data === 'object' ? res.data : {}) as Payout;
  // A body that names no payout (an empty 201/202): the one its Location header names, if any.
  const located =
    body.payout_id === undefined && (body as { id?: unknown }).id === undefined ? locatedPayoutId(res.locationPath) : undefined;
  const payout = located === undefined ? body : { ...body, payout_id: located };
  const differs = payoutDiffers(payout, request);
  if (differs)
    notice(
      f.io,
      settings,
      'PAYOUT_MISMATCH',
      `Warning: the payout was made, but the answer says ${differs} where ${money} was asked: check it with the provider before anything else (Idempotency-Key ${key}${res.traceId ? `, trace ID ${res.traceId}` : ''})`,
    );
  try {
    await showPayout(f, settings, payout, key, money, res.replayed, res.traceId);
  } catch (error) {
    if (error instanceof CliError && !(error instanceof QueryRunError)) throw error;
    // A fault of this CLI while showing it, or a --jmespath that could not run on it: the
    // payout is made, and must not be made again.
    const id = payout.payout_id ?? (payout as { id?: unknown }).id;
    throw faultAfterWrite(
      error,
      `the payout${typeof id === 'string' || typeof id === 'number' ? ` ${id}` : ''} of ${money} was made`,
      `do not pay out again: a retry with --idempotency-key ${key} replays it, never pays twice`,
      res.traceId,
    ).withJsonFields({ idempotency_key: key });
  }
  // Printed: the payout is no longer one whose answer the user never saw (log --unanswered).
  await answerShown(f.io, res);
}

/** Whether an answered amount is the asked one: one of more digits than the currency has (0.30000000000000004) is not. */
function sameMinor(answered: number, asked: number, currency: string): boolean {
  try {
    return toMinor(answered, currency) === toMinor(asked, currency);
  } catch {
    return false;
  }
}

/** What the answer says that is not what was asked (amount or currency), in words; undefined when it agrees or does not say. */
function payoutDiffers(payout: Payout, request: CreatePayoutRequest): string | undefined {
  const p = payout as unknown as Record<string, unknown>;
  const currency = typeof p.currency === 'string' && p.currency !== '' ? p.currency : request.currency;
  const answered = amountValue(p.amount);
  const sameCurrency = currency.toUpperCase() === request.currency.toUpperCase();
  const sameAmount = answered === undefined || !sameCurrency || sameMinor(Math.abs(answered), request.amount, request.currency);
  if (sameCurrency && sameAmount) return undefined;
  return answered === undefined ? `currency ${currency}` : formatMoney(answered, currency);
}

async function showPayout(
  f: Factory,
  settings: OutputSettings,
  payout: Payout,
  key: string,
  money: string,
  replayed: boolean,
  traceId: string | undefined,
): Promise<void> {
  if (replayed) err(f.io, 'This key was used before: the original payout is shown, nothing new was paid out.\n');
  // A field of the server's own named as a secret (`client_secret`), or a code under any
  // name, is masked in every format, as lists mask them: this command has no --reveal.
  const record: Record<string, unknown> = { ...maskSecrets(maskCodes(payout)), idempotency_key: key };
  // --fields the answer does not show (an empty 201): empty, never "unknown field" (exit 2,
  // as if nothing was done) after the payout was made.
  for (const field of settings.fields ?? []) if (!(field in record)) record[field] = null;
  if (settings.format === 'json' || settings.format === 'ndjson') {
    await printRecord(f.io, record, [], settings);
    return;
  }
  const id = payout.payout_id ?? (payout as { id?: unknown }).id;
  if (f.io.stderrIsTTY)
    err(
      f.io,
      `Payout${typeof id === 'string' || typeof id === 'number' ? ` ${id}` : ''} of ${money} created${traceId ? ` (trace ID ${traceId})` : ''}.\n`,
    );
  await printRecord(f.io, record, fieldsOf(payout, key), settings, {
    required: ['payout_id', 'status', 'amount'],
  });
}
