/**
 * `orders create`: one order from flags (one or several items), or a bulk order from a
 * file (`--from`, `--resume`: see bulk.ts). The idempotency key is made once, shown
 * always (on stderr before sending; with --json in the printed order or in the JSON error
 * instead), and is what makes a retry by hand safe. With --json (or --output json/ndjson)
 * stderr carries nothing but the JSON error, when there is one: no progress lines.
 * Commands in hints are shell-quoted and repeat the root --profile / --base-url (hint.ts).
 */
import { isIssued } from '../../api/order-read.js';
import { createOrder } from '../../api/orders.js';
import type { CreateOrderRequest, Order } from '../../contract/orders.js';
import { canonicalStatus, isOpenStatus } from '../../contract/order-values.js';
import { formatMoney, fromMinor } from '../../contract/money-format.js';
import { isIdempotencyKey } from '../../contract/idempotency.js';
import { NotOfferedError } from '../../api/not-offered.js';
import { notice } from '../../core/output/notice.js';
import { ApiError, asCliError, CliError, UsageError } from '../../core/errors/index.js';
import { parseDuration } from '../../core/http/duration.js';
import { refuseSecretAsKey } from '../../core/http/secret-key.js';
import type { ApiClient } from '../../core/http/types.js';
import { answerShown, err } from '../../core/io/io.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { operand } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { confirmOrStop, productionQuestion, productionReason } from './confirm.js';
import { interruptedError, notShownError, placedThenFailed, withRetryHint, type Seen } from './create-errors.js';
import { keyLine, maskedCodesLine, retryCommand } from './hint.js';
import { DEFAULT_WAIT_MS } from './index.js';
import type { BulkOptions } from './bulk-options.js';
import type { CreateFlags } from './index.js';
import { orderFromFlags } from './order-input.js';
import { checkOutcome, CodesNotGivenError, NoCodesFoundError, outcomeError } from './outcome.js';
import { hasCodes } from './redact.js';
import { checkOrderFields, printOrder } from './render.js';
import { acceptedUnread, findCommand, printAccepted, unreadWhy } from './create-accepted.js';
import { codeRows, sentWithCodes, withCodes } from './create-codes.js';

export type { CreateFlags };

/** Idempotency keys of the contract: 1–255 printable ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (!isIdempotencyKey(key)) {
    throw new UsageError(
      '--idempotency-key must be 1 to 255 printable ASCII characters',
      'e.g. --idempotency-key order-2026-11-22-001, or leave it out to get a fresh one',
    );
  }
  return key;
}

export interface SingleOptions {
  body: CreateOrderRequest;
  idempotencyKey: string;
  keyGiven: boolean;
  dryRun: boolean;
  wait: boolean;
  waitMs: number;
  reveal: boolean;
  codesOut?: string;
  yes: boolean;
  settings: OutputSettings;
}

/** Flags → options; every check that needs no network happens here. */
export async function buildCreate(f: Factory, flags: CreateFlags): Promise<SingleOptions> {
  const bulkOnly = (['concurrency', 'results', 'newBatch'] as const).filter((k) => flags[k] !== undefined);
  if (bulkOnly.length > 0)
    throw new UsageError(`--${bulkOnly[0] === 'newBatch' ? 'new-batch' : bulkOnly[0]} only applies to a bulk order (--from FILE)`);
  if (flags.waitTimeout !== undefined && !flags.wait)
    throw new UsageError('--wait-timeout is how long --wait follows the order', 'add --wait; --timeout is the timeout of each request');
  // --wait, --dry-run and --codes-out load their modules when given: a plain order does without them.
  const wanted = flags.wait
    ? (await import('./follow.js')).waitTimeoutFlag(f.io, flags, f.globals().timeout, f.globals().json === true)
    : undefined;
  const body = await orderFromFlags(flags);
  const keyGiven = flags.idempotencyKey !== undefined;
  const idempotencyKey = keyGiven ? checkIdempotencyKey(flags.idempotencyKey as string) : f.ids.idempotencyKey();
  return {
    body,
    idempotencyKey,
    keyGiven,
    dryRun: Boolean(flags.dryRun),
    wait: Boolean(flags.wait),
    waitMs: wanted !== undefined ? parseDuration(wanted.text, wanted.flag) : DEFAULT_WAIT_MS,
    reveal: Boolean(flags.reveal),
    codesOut: flags.codesOut,
    yes: Boolean(flags.yes),
    settings: resolveOutput(f.io, flags, f.globals().color !== false),
  };
}

/**
 * What a production confirmation asks about: each item with its denomination in its
 * currency, the number of vouchers, the total the wallet is charged and which wallet. The
 * currency is the one given (--currency), else the products' as the catalog names it;
 * where neither is known the amounts are shown bare and it is said why.
 */
async function describe(client: ApiClient, body: CreateOrderRequest, signal: AbortSignal): Promise<string> {
  const vouchers = body.items.reduce((n, i) => n + i.quantity, 0);
  const { lookupProducts, orderCurrency, productCurrencies, productCurrency, totalMinor } = await import('./preflight.js');
  let lookups: Awaited<ReturnType<typeof lookupProducts>> = new Map();
  let failed: string | undefined;
  if (!body.currency) {
    try {
      lookups = await lookupProducts(
        client,
        body.items.map((i) => i.product_id),
        signal,
      );
    } catch (error) {
      if (signal.aborted || !(error instanceof CliError)) throw error;
      failed = `the catalog could not be asked (${error.message})`;
    }
  }
  const currencyOf = (productId: string) => body.currency ?? productCurrency(lookups.get(productId));
  const list = body.items.map((i) => `${i.quantity} × ${i.product_id} ${formatMoney(i.denomination, currencyOf(i.product_id))}`).join(', ');
  // Why an item's currency is not known: the catalog's own words for its product, or that it names none.
  const unknown = body.items.filter((i) => currencyOf(i.product_id) === undefined).map((i) => i.product_id);
  const why = (id: string) => {
    const found = lookups.get(id);
    return failed ?? (found && 'problem' in found ? found.problem : `the catalog names no currency for ${id}`);
  };
  const sold = productCurrencies(body.items, lookups);
  const currency = unknown.length === 0 ? orderCurrency(body.items, lookups, body.currency) : undefined;
  let total: string;
  if (currency !== undefined) {
    let minor: number | undefined;
    try {
      minor = totalMinor(body.items, currency);
    } catch {
      minor = undefined;
    }
    total =
      minor === undefined
        ? `total not known: a denomination has more digits than ${currency} holds`
        : `total ${formatMoney(fromMinor(minor, currency), currency)} charged to the ${currency} wallet`;
  } else if (sold.size > 1)
    total = `total not known: the items are sold in ${[...sold].join(' and ')}, and one order is paid from one wallet`;
  else total = `total not known: ${[...new Set(unknown)].map(why).join('; ')}`;
  return `${list} (${vouchers} voucher${vouchers === 1 ? '' : 's'}), ${total},`;
}

/** What `orders create` was asked for: one order (single or multi-item), or a bulk file. */
export type CreateInput = { bulk: BulkOptions } | { single: SingleOptions };

/**
 * Flags → a bulk run (--from, --resume) or one order; every check that needs no network.
 * The bulk code loads only for a bulk run.
 */
export async function parseCreateFlags(f: Factory, flags: CreateFlags): Promise<CreateInput> {
  if (flags.from !== undefined || flags.resume !== undefined)
    return { bulk: await (await import('./bulk-options.js')).buildBulk(f, flags) };
  return { single: await buildCreate(f, flags) };
}

export async function run(f: Factory, flags: CreateFlags): Promise<void> {
  await runCreate(f, await parseCreateFlags(f, flags));
}

export async function runCreate(f: Factory, input: CreateInput): Promise<void> {
  if ('bulk' in input) {
    const { runBulk } = await import('./bulk.js');
    return runBulk(f, input.bulk);
  }
  const o = input.single;
  const { io } = f;
  if (await checkOrderFields(io, o.settings, ['idempotency_key'], { write: true })) return;
  if (o.codesOut !== undefined) await (await import('../../core/io/codes-file.js')).assertCodesFileFree(o.codesOut, io.cwd);
  const profile = await f.profile();
  // Before the key is printed below: a pasted secret is neither shown nor sent.
  refuseSecretAsKey(o.idempotencyKey, profile.api_secret);
  const client = await f.client();

  if (o.dryRun) {
    await (await import('./dry-run.js')).runDryRun(f, client, o.body, o.settings);
    return;
  }
  if (profile.production) {
    await confirmOrStop(io, {
      yes: o.yes,
      // Looked up only when asked: --yes and a script send nothing more than the order.
      question: async () => productionQuestion(profile.name, `order ${await describe(client, o.body, io.signal)}`),
      reason: productionReason(profile),
    });
  }

  // With --json the key is in the printed order, or in the JSON error: stderr stays JSON.
  const json = o.settings.format === 'json' || o.settings.format === 'ndjson';
  if (!json) err(io, keyLine(o.idempotencyKey, o.keyGiven, 'order'));
  const seen: Seen = {};
  try {
    await place(f, client, o, seen, json);
  } catch (error) {
    const stopped = io.signal.aborted && !(error instanceof CliError && error.kind !== 'interrupted');
    // Stopped after the answer named the order (while following it): the error names it and
    // how to follow it, so its answer is shown; log --unanswered must not send the user to
    // run the order again for it.
    if (stopped && seen.order?.order_id) seen.answer?.shown?.();
    throw asCliError(
      stopped ? interruptedError(io, o, seen, f.globals(), error) : placedThenFailed(seen, o, f.globals(), error),
    ).withJsonFields({
      idempotency_key: o.idempotencyKey,
    });
  }
}

/**
 * Send the order, follow it (--wait), fetch and save its codes, print it; exit by how it
 * ended. `json`: no human lines on stderr (only the JSON error, if any, written by main).
 */
async function place(f: Factory, client: ApiClient, o: SingleOptions, seen: Seen, json: boolean): Promise<void> {
  const { io } = f;
  const globals = f.globals();
  const say = (text: string) => {
    if (!json) err(io, text);
  };
  let res;
  try {
    res = await createOrder(client, o.body, {
      idempotencyKey: o.idempotencyKey,
      keyGiven: o.keyGiven,
      showsAnswer: true,
      signal: io.signal,
    });
  } catch (error) {
    const refused = withRetryHint(error, o.idempotencyKey, findCommand(globals, o), retryCommand(globals, o));
    // A product the server does not know: the one it likely is, asked only now (the order is
    // not retried); loaded only then, as the words of the error's hint (chalk) are.
    if (refused !== error || (error instanceof ApiError && error.earlierMayHaveReached)) throw refused;
    const { withMeantProduct } = await import('../../api/product-slip.js');
    throw await withMeantProduct(
      error,
      client,
      o.body.items.map((i) => i.product_id),
      globals,
      io.signal,
    );
  }
  let order = res.data;
  // The server's own body, when it differs from the contract (printed as it came with --json).
  let received = res.received;
  seen.order = order;
  seen.traceId = res.traceId;
  seen.answer = res;
  const trace = res.traceId ? ` · trace ${res.traceId}` : '';
  // A replay answered to this run's own retry (its key made here) is this run's order, placed once.
  const replayed = !res.replayed
    ? ''
    : res.attempts > 1 && !o.keyGiven
      ? ` (placed once: an earlier attempt of this run placed it, and the retry was answered with its result)`
      : ' (replayed: this key was used before; nothing was ordered again)';
  // An answer that does not say what the order is (an empty 201/202 whose Location header
  // names it, a body without its status): --wait reads it with GET /orders/{id}.
  const unread = String(order.status) === '';
  if (order.order_id === '' || (unread && res.idFromLocation && !o.wait)) {
    await acceptedUnread(f, o, res, trace, replayed, json);
    return;
  }
  if (unread) {
    say(`Order ${order.order_id} accepted (HTTP ${res.status}; ${unreadWhy(res)})${trace}${replayed}\n`);
  } else if (res.status === 201 || order.status !== 'PENDING') {
    say(`Order ${order.order_id} ${order.status}${order.fulfilled_from ? ` from ${order.fulfilled_from}` : ''}${trace}${replayed}\n`);
  } else {
    say(`Order ${order.order_id} accepted: ${order.status} (fulfilled asynchronously)${trace}${replayed}\n`);
  }

  if (o.wait) {
    const { followOnTerminal } = await import('./follow.js');
    let followed;
    try {
      followed = await followOnTerminal(f, client, order.order_id, {
        timeoutMs: o.waitMs,
        // An answer that does not say the order's status is no start: the first GET is.
        initial: unread ? undefined : { order, traceId: res.traceId, received },
        requestTimeoutMs: (await f.profile()).timeout_ms,
        quiet: json,
        acceptedJustNow: true,
        onStatus: (last, traceId) => {
          seen.order = last;
          seen.traceId = traceId ?? seen.traceId;
        },
        // Printed before the error (a timeout, following stopped): shown as well.
        onShort: async (last, lastReceived) => {
          await printOrder(io, last, o.settings, {
            reveal: false,
            extra: { idempotency_key: o.idempotencyKey },
            received: lastReceived,
            written: true,
          });
          await answerShown(io, res);
        },
      });
    } catch (error) {
      // Never shown by a GET: print what the answer said (its id above all), as onShort does.
      if (String(seen.order?.status ?? '') === '' && !io.signal.aborted) {
        await printAccepted(io, o, res);
        await answerShown(io, res);
      }
      // Still 404 when the wait ended: accepted, not shown yet; never a "not found" to order again on.
      throw error instanceof ApiError && error.status === 404 ? notShownError(order.order_id, res, o, globals, error) : error;
    }
    // GET shows code_last4 only; the codes of the 201 answer are kept when it was a cache-hit.
    if (!hasCodes(order)) {
      order = followed.order;
      received = followed.received;
    }
    seen.order = followed.order;
    seen.traceId = followed.traceId ?? seen.traceId;
  } else if (isOpenStatus(order.status)) {
    say(`Follow it: ${suggestedCommand(globals, ['orders', 'wait', operand(order.order_id)])}\n`);
  }

  const wantsCodes = o.reveal || o.codesOut !== undefined;
  const issued = order.vouchers.some(isIssued);
  // A failure to fetch the codes is said after the order is printed: it was placed all the same.
  let codesFailed: unknown;
  if (wantsCodes && issued && !hasCodes(order)) {
    try {
      const fetched = await withCodes(client, order, io.signal);
      order = fetched.order;
      // The codes now sit in the order as read: a server's own body is printed with them put
      // into its vouchers (never with the fields the reading fills), else the order as read.
      received = sentWithCodes(received, order);
      seen.traceId = fetched.traceId ?? seen.traceId;
    } catch (error) {
      if (io.signal.aborted) throw error;
      codesFailed = error;
    }
  }

  await printOrder(io, order, o.settings, { reveal: o.reveal, extra: { idempotency_key: o.idempotencyKey }, received, written: true });
  // Printed: the order is no longer one whose answer the user never saw (log --unanswered).
  await answerShown(io, res);
  if (codesFailed !== undefined) {
    // The secure endpoint does not know an order that exists: `orders codes` would fail the same way.
    if (codesFailed instanceof NotOfferedError) throw new CodesNotGivenError(order, codesFailed, { placed: true });
    throw codesFailed;
  }
  // As orders get says: the codes are at the secure endpoint, not in running this command again.
  if (io.stderrIsTTY && !json && !wantsCodes && issued && !o.settings.fields) say(maskedCodesLine(globals, order.order_id));

  if (o.codesOut !== undefined) {
    const rows = codeRows(order);
    if (rows.length === 0 && saysDone(order, issued)) {
      // Delivered, and no code where this version reads them: never a success without the file.
      const error = new NoCodesFoundError(
        `order ${order.order_id} is ${order.status || 'delivered'}${order.fulfilled_from ? ` from ${order.fulfilled_from}` : ''}, but its answer holds no codes where this version of vouchers reads them (vouchers[].code; without vouchers, codes, voucher_codes or items[].vouchers): nothing was written to ${o.codesOut}`,
        `fetch them from the secure code endpoint: ${suggestedCommand(globals, ['orders', 'codes', operand(order.order_id), '--codes-out', o.codesOut])}; see the order as sent: ${suggestedCommand(globals, ['api', 'GET', `/orders/${order.order_id}`])}`,
        seen.traceId,
      );
      // An order that ended without all its vouchers exits as such (5), saying this first.
      if (outcomeError(order, seen.traceId, { globals }) === undefined) throw error;
      say(`No codes written to ${o.codesOut}: ${error.message}\n`);
    } else if (rows.length === 0) {
      say(
        `No codes written to ${o.codesOut}: the order has no issued vouchers yet; once delivered: ${suggestedCommand(globals, ['orders', 'codes', operand(order.order_id), '--codes-out', o.codesOut])}\n`,
      );
    } else {
      let written;
      try {
        written = await (await import('../../core/io/codes-file.js')).writeCodesFile(o.codesOut, io.cwd, rows);
      } catch (error) {
        // The order is placed and printed above: say so, and how to get its codes.
        const why = error instanceof Error ? error.message : String(error);
        throw new UsageError(
          `order ${order.order_id} was placed, but its codes could not be saved: ${why}`,
          `fetch them into a new file: ${suggestedCommand(globals, ['orders', 'codes', operand(order.order_id), '--codes-out', 'NEW_FILE'])}`,
          { cause: error },
        );
      }
      say(`Wrote ${written.count} code${written.count === 1 ? '' : 's'} to ${written.path} (mode 0600)\n`);
      // Codes left on disk by a killed run are said under --json too: as a notice.
      for (const note of written.leftovers) notice(io, o.settings, 'CODES_SIDE_FILE', note);
      // Vouchers issued without a code where this version reads them: the file is not all of them.
      const issuedCount = order.vouchers.filter(isIssued).length;
      if (issuedCount > written.count && outcomeError(order, seen.traceId, { globals }) === undefined)
        throw new NoCodesFoundError(
          `${issuedCount - written.count} of the ${issuedCount} vouchers issued to order ${order.order_id} came without a code this version of vouchers reads: ${written.path} holds the other ${written.count}`,
          `do not order again; see the codes as the server sends them: ${suggestedCommand(globals, ['api', 'GET', `/orders/${order.order_id}/vouchers`])}; if they are not there, ask the service's support, quoting the trace ID`,
          seen.traceId,
        ).withJsonFields({ order_id: order.order_id });
    }
  }
  // Printed (and codes saved) above; then exit 5 unless every voucher was delivered.
  checkOutcome(order, seen.traceId, globals);
}

/**
 * Whether an answer says the order was delivered, so that its codes should be in it or at the
 * secure endpoint: DELIVERED or PARTIALLY_DELIVERED (in any spelling), a cache-hit
 * (`fulfilled_from`), or vouchers listed as issued.
 */
function saysDone(order: Order, issued: boolean): boolean {
  const status = canonicalStatus(order.status);
  if (isOpenStatus(order.status)) return false;
  return status === 'DELIVERED' || status === 'PARTIALLY_DELIVERED' || Boolean(order.fulfilled_from) || issued;
}
