/**
 * Errors an integration must tell apart: no stock (INSUFFICIENT_INVENTORY) and a wallet too
 * low (INSUFFICIENT_FUNDS), each surfaced with its code and debiting nothing. The second
 * needs a partner with a small wallet, made through the sandbox's operator surface.
 */
import { adminCall } from '../../api/sandbox-admin.js';
import { amountValue, fromMinor, toMinor } from '../../contract/money-format.js';
import { readByCurrency } from '../../core/http/by-currency.js';
import { readList } from '../../core/http/validate.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { RawRequest, RawResponse } from '../raw.js';
import type { CheckDef, PlacedOrder } from '../types.js';
import { orderBody, requireProduct, walletMinor } from './support.js';

function describe(res: RawResponse): string {
  return `HTTP ${res.status}${res.code ? ` ${res.code}` : ''}`;
}

function money(minor: number, currency: string): string {
  return `${fromMinor(minor, currency)} ${currency}`;
}

/** The order a raw answer's body names, when it names one (a server that should have refused it). */
function placedOfRaw(res: RawResponse, currency: string): PlacedOrder | undefined {
  const body = res.json as { order_id?: unknown; total_amount?: unknown; currency?: unknown } | undefined;
  if (body === null || typeof body !== 'object' || typeof body.order_id !== 'string' || body.order_id === '') return undefined;
  return {
    order_id: body.order_id,
    total_amount: amountValue(body.total_amount) ?? 0,
    currency: typeof body.currency === 'string' ? body.currency : currency,
  };
}

/**
 * The available balance (minor units) in a GET /wallets answer, its rows read as the client
 * reads them (readList: `{data}`, a bare list, one array under another key or in a wrapper;
 * else keyed by currency, a plain amount read as `available`: readByCurrency); `available`
 * or `balance`.
 */
function balanceIn(json: unknown, currency: string): number | undefined {
  const read = readList(json);
  const rows = read.read.shape === 'none' ? (readByCurrency(json, 'available')?.rows ?? []) : read.list.data;
  for (const row of rows as unknown[]) {
    if (row === null || typeof row !== 'object') continue;
    const w = row as Record<string, unknown>;
    if ((w.currency ?? w.currency_code) !== currency) continue;
    const value = amountValue(w.available ?? w.balance);
    return value === undefined ? undefined : toMinor(value, currency);
  }
  return undefined;
}

export const ERROR_CHECKS: CheckDef[] = [
  {
    id: 'errors.insufficient-inventory',
    title: 'INSUFFICIENT_INVENTORY surfaced with its code',
    proves:
      'An order of a product without stock is refused with the error code INSUFFICIENT_INVENTORY (409 in our contract; the document leaves the status open) and debits nothing.',
    async run(ctx) {
      const product = await requireProduct(ctx, 'outOfStock');
      const currency = product.currency;
      const request: RawRequest = {
        method: 'POST',
        path: '/orders',
        body: orderBody(ctx, { product }),
        idempotencyKey: globalThis.crypto.randomUUID(),
      };
      const reproduce = ctx.raw.reproduce(request);
      const before = await walletMinor(ctx, currency);
      const res = await ctx.raw.send(request);
      const after = await walletMinor(ctx, currency);
      const expected = 'HTTP 409 INSUFFICIENT_INVENTORY, nothing debited';
      if (res.status >= 200 && res.status < 300) {
        const placed = placedOfRaw(res, currency);
        if (placed && !ctx.shared.orders.some((o) => o.order_id === placed.order_id)) ctx.shared.orders.push(placed);
        throw new CheckFailure(`the order of ${product.id}, which has no stock, was accepted`, {
          expected,
          actual: `${describe(res)}${placed ? `: order ${placed.order_id}` : ''}`,
          reproduce,
        });
      }
      if (res.code !== 'INSUFFICIENT_INVENTORY') {
        throw new CheckFailure(`the refusal does not name INSUFFICIENT_INVENTORY: ${describe(res)}`, {
          expected,
          actual: res.code ? describe(res) : `${describe(res)} without an error code`,
          reproduce,
        });
      }
      if (res.status < 400 || res.status >= 500) {
        throw new CheckFailure(`INSUFFICIENT_INVENTORY came with HTTP ${res.status}, not a client error`, {
          expected,
          actual: describe(res),
          reproduce,
        });
      }
      if (before !== undefined && after !== undefined && before !== after) {
        throw new CheckFailure(`the refused order changed the wallet by ${money(after - before, currency)}`, {
          expected: `the ${currency} wallet unchanged`,
          actual: `${money(before, currency)} before, ${money(after, currency)} after`,
          reproduce,
        });
      }
      if (res.status !== 409) ctx.warn(`INSUFFICIENT_INVENTORY came with HTTP ${res.status}, where the contract says 409`);
      const known = before !== undefined && after !== undefined;
      if (!known) ctx.warn(`no ${currency} wallet could be read, so no debit was ruled out`);
      return { message: `refused: ${describe(res)}${known ? '; the wallet is unchanged' : ''}` };
    },
  },
  {
    id: 'errors.insufficient-funds',
    title: 'INSUFFICIENT_FUNDS surfaced',
    proves:
      'An order above the wallet balance is refused with 402 INSUFFICIENT_FUNDS and debits nothing (a partner with a small wallet, made through the operator surface).',
    needs: ['admin'],
    async run(ctx) {
      const admin = ctx.admin;
      if (!admin) throw new CheckSkip('no operator surface to make a partner with a small wallet');
      const product = await requireProduct(ctx, 'instant');
      const currency = product.currency;
      const denominationMinor = toMinor(product.denomination, currency);
      // Half of one voucher: the order cannot be paid whatever the currency's minor digits.
      const fundedMinor = Math.floor(denominationMinor / 2);
      const funded = fromMinor(fundedMinor, currency);
      const made = await adminCall<{ key?: { api_key?: string; api_secret?: string } }>(admin, 'POST', '/partners', {
        body: { name: 'certify insufficient funds', wallets: { [currency]: funded } },
        signal: ctx.signal,
      });
      const key = made.data?.key;
      if (typeof key?.api_key !== 'string' || typeof key.api_secret !== 'string') {
        throw new CheckFailure('the operator surface made a partner but returned no API key and secret', {
          expected: 'key.api_key and key.api_secret in the answer of POST /admin/partners',
          actual: `HTTP ${made.status}`,
        });
      }
      const credentials = { apiKey: key.api_key, apiSecret: key.api_secret };
      const balance = async () => {
        const res = await ctx.raw.send({ method: 'GET', path: '/wallets', credentials });
        return res.status >= 200 && res.status < 300 ? balanceIn(res.json, currency) : undefined;
      };
      try {
        const request: RawRequest = {
          method: 'POST',
          path: '/orders',
          body: orderBody(ctx, { product }),
          idempotencyKey: globalThis.crypto.randomUUID(),
          credentials,
        };
        // Repeating it needs a partner with a small wallet (the profile's own would be debited), its key in the environment.
        const reproduce = `vouchers sandbox admin partners create --name 'Small wallet' --wallet ${currency}=${funded} --show-secret, then with VOUCHERS_API_KEY and VOUCHERS_API_SECRET set to that key: ${ctx.raw.reproduce(request)}`;
        const expected = `HTTP 402 INSUFFICIENT_FUNDS for ${money(denominationMinor, currency)} against a wallet of ${money(fundedMinor, currency)}, nothing debited`;
        const before = await balance();
        const res = await ctx.raw.send(request);
        const after = await balance();
        if (res.status >= 200 && res.status < 300) {
          const placed = placedOfRaw(res, currency);
          throw new CheckFailure(
            `an order of ${money(denominationMinor, currency)} was accepted from a wallet of ${money(fundedMinor, currency)}`,
            { expected, actual: `${describe(res)}${placed ? `: order ${placed.order_id}` : ''}`, reproduce },
          );
        }
        const named = res.code === 'INSUFFICIENT_FUNDS';
        if (!named && !(res.status === 402 && res.code === undefined)) {
          throw new CheckFailure(`the refusal does not name INSUFFICIENT_FUNDS: ${describe(res)}`, {
            expected,
            actual: res.code ? describe(res) : `${describe(res)} without an error code`,
            reproduce,
          });
        }
        if (res.status < 400 || res.status >= 500) {
          throw new CheckFailure(`INSUFFICIENT_FUNDS came with HTTP ${res.status}, not a client error`, {
            expected,
            actual: describe(res),
            reproduce,
          });
        }
        if (before !== undefined && after !== undefined && before !== after) {
          throw new CheckFailure(`the refused order changed the wallet by ${money(after - before, currency)}`, {
            expected: `the ${currency} wallet unchanged at ${money(fundedMinor, currency)}`,
            actual: `${money(before, currency)} before, ${money(after, currency)} after`,
            reproduce,
          });
        }
        if (!named) ctx.warn('refused with HTTP 402 but without the error code INSUFFICIENT_FUNDS');
        else if (res.status !== 402) ctx.warn(`INSUFFICIENT_FUNDS came with HTTP ${res.status}, where the contract says 402`);
        const known = before !== undefined && after !== undefined;
        if (!known) ctx.warn(`the small partner's ${currency} wallet could not be read, so no debit was ruled out`);
        return {
          message: `refused: ${describe(res)} (${money(denominationMinor, currency)} against ${money(fundedMinor, currency)})${known ? '; the wallet is unchanged' : ''}`,
        };
      } finally {
        // The partner was made for this check only: its key is revoked (best effort).
        await adminCall(admin, 'POST', `/keys/${encodeURIComponent(credentials.apiKey)}/revoke`, { signal: ctx.signal }).catch(
          () => undefined,
        );
      }
    },
  },
];
