/** Admin: partners, API keys (create, allowlist, revoke, rotate) and wallet funding. */
import { toMinor } from '../../contract/money-format.js';
import { DEFAULT_ALLOWLIST } from '../core/cidr.js';
import { requireAmount, requireSafeMinor } from '../domain/amount.js';
import { balanceMinor, post } from '../domain/ledger.js';
import { transactionView, walletView } from '../domain/views.js';
import { SandboxHttpError, validationFailed } from '../http/errors.js';
import { jsonReply } from '../http/respond.js';
import type { Runtime } from '../runtime.js';
import { newApiKey, newApiSecret } from '../state/credentials.js';
import { RESTRICTED_CATEGORY } from '../products.js';
import type { ApiKeyRecord, PartnerRecord } from '../state/types.js';
import type { AdminRoute } from './context.js';
import { AllowlistBody, FundBody, KeyBody, PartnerBody } from './schemas.js';
import { own } from '../core/records.js';

export function partnerView(p: PartnerRecord) {
  return {
    partner_id: p.partner_id,
    name: p.name,
    categories: [...p.categories],
    wallets: Object.entries(p.wallets).map(([c, w]) => walletView(c, w)),
    created_at: new Date(p.created_at).toISOString(),
  };
}

/** A key without its secret. */
export function keyView(k: ApiKeyRecord) {
  return {
    api_key: k.api_key,
    partner_id: k.partner_id,
    allowlist: [...k.allowlist],
    created_at: new Date(k.created_at).toISOString(),
    revoked_at: k.revoked_at === null ? null : new Date(k.revoked_at).toISOString(),
  };
}

function findPartner(rt: Runtime, id: string | undefined): PartnerRecord {
  const p = own(rt.state.partners, id);
  if (!p) throw new SandboxHttpError('NOT_FOUND', `Partner ${id ?? ''} does not exist; list partners with GET /admin/partners`);
  return p;
}

function findKey(rt: Runtime, id: string | undefined): ApiKeyRecord {
  const k = own(rt.state.keys, id);
  if (!k) throw new SandboxHttpError('NOT_FOUND', `API key ${id ?? ''} does not exist; list keys with GET /admin/keys`);
  return k;
}

function issueKey(rt: Runtime, partnerId: string, allowlist: readonly string[]): ApiKeyRecord {
  const key: ApiKeyRecord = {
    api_key: newApiKey(),
    api_secret: newApiSecret(),
    partner_id: partnerId,
    allowlist: [...allowlist],
    created_at: rt.clock.now(),
    revoked_at: null,
  };
  rt.state.keys[key.api_key] = key;
  return key;
}

/** A key with its secret: only in the answer that creates it. */
function keyWithSecret(k: ApiKeyRecord) {
  return { ...keyView(k), api_secret: k.api_secret };
}

export const ACCOUNT_ROUTES: AdminRoute[] = [
  {
    method: 'GET',
    path: '/partners',
    handler: ({ rt }) => jsonReply(200, { data: Object.values(rt.state.partners).map(partnerView), has_more: false, next_cursor: null }),
  },
  {
    method: 'GET',
    path: '/partners/{partner_id}',
    handler: ({ rt, params }) => jsonReply(200, partnerView(findPartner(rt, params.partner_id))),
  },
  {
    method: 'POST',
    path: '/partners',
    body: PartnerBody,
    handler: ({ rt, body }) => {
      const req = body as { name: string; categories?: string[]; wallets?: Record<string, number>; allowlist?: string[] };
      const known = rt.state.categories.map((c) => c.category_id);
      const unknown = (req.categories ?? []).filter((c) => !known.includes(c));
      if (unknown.length)
        throw validationFailed([{ path: 'categories', message: `unknown categories ${unknown.join(', ')}; known: ${known.join(', ')}` }]);
      const partner: PartnerRecord = {
        partner_id: rt.ids.next('ptn'),
        name: req.name,
        categories: req.categories ?? known.filter((c) => c !== RESTRICTED_CATEGORY),
        wallets: {},
        created_at: rt.clock.now(),
      };
      rt.state.partners[partner.partner_id] = partner;
      for (const [currency, amount] of Object.entries(req.wallets ?? {})) {
        let minor: number;
        try {
          minor = toMinor(amount, currency);
        } catch (e) {
          throw validationFailed([{ path: `wallets.${currency}`, message: (e as Error).message }]);
        }
        if (minor > 0) post(rt, partner, { type: 'TOP_UP', amount_minor: minor, currency, description: 'Sandbox opening balance' });
        else partner.wallets[currency] = { available_minor: 0, updated_at: rt.clock.now() };
      }
      const key = issueKey(rt, partner.partner_id, req.allowlist ?? DEFAULT_ALLOWLIST);
      rt.changed();
      return jsonReply(201, { partner: partnerView(partner), key: keyWithSecret(key) });
    },
  },
  {
    method: 'GET',
    path: '/keys',
    handler: ({ rt, query }) => {
      const partner = query.get('partner_id');
      const rows = Object.values(rt.state.keys)
        .filter((k) => partner === null || k.partner_id === partner)
        .map(keyView);
      return jsonReply(200, { data: rows, has_more: false, next_cursor: null });
    },
  },
  {
    method: 'POST',
    path: '/partners/{partner_id}/keys',
    body: KeyBody,
    handler: ({ rt, params, body }) => {
      const partner = findPartner(rt, params.partner_id);
      const key = issueKey(rt, partner.partner_id, (body as { allowlist?: string[] }).allowlist ?? DEFAULT_ALLOWLIST);
      rt.changed();
      return jsonReply(201, keyWithSecret(key));
    },
  },
  {
    method: 'PUT',
    path: '/keys/{api_key}/allowlist',
    body: AllowlistBody,
    handler: ({ rt, params, body }) => {
      const key = findKey(rt, params.api_key);
      key.allowlist = [...(body as { allowlist: string[] }).allowlist];
      rt.changed();
      return jsonReply(200, keyView(key));
    },
  },
  {
    method: 'POST',
    path: '/keys/{api_key}/revoke',
    handler: ({ rt, params }) => {
      const key = findKey(rt, params.api_key);
      key.revoked_at ??= rt.clock.now();
      rt.changed();
      return jsonReply(200, keyView(key));
    },
  },
  {
    method: 'POST',
    path: '/keys/{api_key}/rotate',
    handler: ({ rt, params }) => {
      const old = findKey(rt, params.api_key);
      if (old.revoked_at !== null)
        throw validationFailed([
          { path: 'api_key', message: `is already revoked; issue a new key with POST /admin/partners/${old.partner_id}/keys` },
        ]);
      const key = issueKey(rt, old.partner_id, old.allowlist);
      old.revoked_at = rt.clock.now();
      rt.changed();
      return jsonReply(201, { ...keyWithSecret(key), replaces: old.api_key });
    },
  },
  {
    method: 'POST',
    path: '/wallets/fund',
    body: FundBody,
    handler: ({ rt, svc, body }) => {
      const req = body as { partner_id?: string; currency: string; amount: number; description?: string; count?: number };
      const partner = findPartner(rt, req.partner_id ?? svc.credentials().partnerId);
      const minor = requireAmount(req.amount, req.currency, 'amount', true);
      const times = req.count ?? 1;
      requireSafeMinor(minor * times, 'count', `${times} × the amount`);
      requireSafeMinor(balanceMinor(partner, req.currency) + minor * times, 'amount', `the ${req.currency} balance after this`);
      const entry = {
        type: minor > 0 ? ('TOP_UP' as const) : ('ADJUSTMENT' as const),
        amount_minor: minor,
        currency: req.currency,
        description: req.description ?? (minor > 0 ? 'Sandbox top-up by the operator' : 'Sandbox adjustment by the operator'),
      };
      // All or nothing: a run of adjustments that would end below zero is refused up front
      // (posting the whole sum raises the ledger's own 402 and changes nothing).
      if (minor < 0 && times > 1 && balanceMinor(partner, req.currency) + minor * times < 0)
        post(rt, partner, { ...entry, amount_minor: minor * times });
      let txn = post(rt, partner, entry);
      for (let i = 1; i < times; i++) txn = post(rt, partner, entry);
      rt.changed();
      return jsonReply(200, { wallet: walletView(req.currency, partner.wallets[req.currency]!), transaction: transactionView(txn) });
    },
  },
];
