/**
 * `vouchers api` and the production confirmation: a write that moves money (an order, a
 * payout, a cancellation and its refund) asks on a production profile, as `orders create`
 * and `payouts create` do, whichever command sends it.
 */
import { findRoute } from '../../contract/routes.js';
import type { ResolvedProfile } from '../../core/config/types.js';
import type { IO } from '../../core/io/io.js';
import { confirmOrStop, productionQuestion, productionReason } from '../orders/confirm.js';

/** The routes that move money, by id (src/contract/routes.ts). */
export const MONEY_ROUTES: Readonly<Record<string, string>> = {
  createOrder: 'places an order and debits the wallet',
  createPayout: 'pays out wallet funds',
  cancelOrder: 'cancels an order',
};

/**
 * What a request does to money, or undefined when it moves none. The path is normalised
 * first (no query, repeated or trailing slashes, letter case) so that `/orders/` or
 * `//Payouts` is not a way around the question.
 */
export function moneyMove(method: string, path: string): string | undefined {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') return undefined;
  const normal = '/' + path.split(/[?#]/)[0]!.split('/').filter(Boolean).join('/');
  const route = findRoute(m, normal);
  if (route && MONEY_ROUTES[route.id]) return MONEY_ROUTES[route.id];
  // Not an exact route (another case, an unknown method on these paths): still ask.
  if (/^\/orders$/i.test(normal)) return MONEY_ROUTES.createOrder;
  if (/^\/payouts$/i.test(normal)) return MONEY_ROUTES.createPayout;
  if (/^\/orders\/[^/]+\/cancel$/i.test(normal)) return MONEY_ROUTES.cancelOrder;
  return undefined;
}

/**
 * Whether a request creates something that costs money (an order, a payout): its answer,
 * once printed, is logged as shown (RequestOptions.showsAnswer). A cancellation is not one.
 */
export function createsCost(method: string, path: string): boolean {
  const what = moneyMove(method, path);
  return what === MONEY_ROUTES.createOrder || what === MONEY_ROUTES.createPayout;
}

/** On a production profile, ask before a money-moving request (or require --yes); otherwise pass. */
export async function confirmMoneyMove(io: IO, profile: ResolvedProfile, method: string, path: string, yes: boolean): Promise<void> {
  if (!profile.production) return;
  const what = moneyMove(method, path);
  if (what === undefined) return;
  const request = `${method.toUpperCase()} ${path.split('?')[0]}`;
  await confirmOrStop(io, {
    yes,
    question: productionQuestion(profile.name, `send ${request}, which ${what},`),
    reason: `${productionReason(profile)} and ${request} ${what}`,
  });
}
