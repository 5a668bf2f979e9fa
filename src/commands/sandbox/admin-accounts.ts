/**
 * `sandbox admin fund|partners|keys|allowlist`: wallets, partners, API keys and their
 * allowlists. Secrets of new keys are masked unless --show-secret.
 */
import { UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { isLoopbackHost } from '../../core/net/loopback.js';
import { formatMoney } from '../../core/output/format.js';
import type { OutputFlags } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { adminCall, adminTarget, type AdminList } from '../../api/sandbox-admin.js';
import { amountFlag, currencyFlag, wholeNumberFlag } from './admin-flags.js';
import {
  fieldsFirst,
  KEY_COLUMNS,
  KEY_LABELS,
  PARTNER_COLUMNS,
  secretNote,
  keyFields,
  showList,
  showRecord,
  shownKey,
  type AdminKey,
  type AdminPartner,
  type AdminWallet,
} from './admin-output.js';
import type {
  AdminFundFlags,
  AdminKeysCreateFlags,
  AdminKeysListFlags,
  AdminKeysRotateFlags,
  AdminPartnersCreateFlags,
} from './admin-register.js';

export type FundFlags = AdminFundFlags;

interface FundAnswer {
  wallet: AdminWallet;
  transaction: { transaction_id: string; type: string; amount: number; balance_after: number; currency: string };
}

export async function fund(f: Factory, flags: FundFlags): Promise<void> {
  const count = flags.count === undefined ? undefined : wholeNumberFlag(flags.count, '--count', 1, 1_000_000);
  const body = {
    currency: currencyFlag(flags.currency),
    amount: amountFlag(flags.amount),
    partner_id: flags.partner,
    description: flags.description,
    count,
  };
  if (await fieldsFirst(f, flags, ['currency', 'amount', 'available', 'reserved', 'transaction_id', 'type'], ['wallet', 'transaction']))
    return;
  const target = await adminTarget(f);
  const res = await adminCall<FundAnswer>(target, 'POST', '/wallets/fund', { body, signal: f.io.signal });
  const { wallet, transaction } = res.data;
  await showRecord(f, flags, res.data, [
    { label: 'currency', value: wallet.currency },
    { label: 'amount', value: formatMoney(transaction.amount, wallet.currency) },
    { label: 'available', value: formatMoney(wallet.available, wallet.currency) },
    { label: 'reserved', value: formatMoney(wallet.reserved, wallet.currency) },
    { label: 'transaction_id', value: transaction.transaction_id },
    { label: 'type', value: transaction.type },
  ]);
}

export async function partnersList(f: Factory, flags: OutputFlags): Promise<void> {
  const res = await adminCall<AdminList<AdminPartner>>(await adminTarget(f), 'GET', '/partners', { signal: f.io.signal });
  await showList(f, flags, res.data.data, PARTNER_COLUMNS, 'No partners.');
}

export type PartnerCreateFlags = AdminPartnersCreateFlags;

/** `--wallet USD=100` (repeatable) → `{ USD: 100 }`. */
function wallets(values: string[] | undefined): Record<string, number> | undefined {
  if (!values?.length) return undefined;
  const outW: Record<string, number> = {};
  for (const v of values) {
    const m = /^\s*([A-Za-z]{3})\s*[=:]\s*(\d+(?:\.\d+)?)\s*$/.exec(v);
    if (!m) throw new UsageError(`--wallet ${JSON.stringify(v)} is not CURRENCY=AMOUNT`, 'e.g. --wallet USD=1000 --wallet EUR=500');
    outW[m[1]!.toUpperCase()] = Number(m[2]);
  }
  return outW;
}

export async function partnersCreate(f: Factory, flags: PartnerCreateFlags): Promise<void> {
  const body = {
    name: flags.name,
    categories: flags.category?.length ? flags.category : undefined,
    wallets: wallets(flags.wallet),
    allowlist: flags.allow?.length ? flags.allow : undefined,
  };
  if (await fieldsFirst(f, flags, ['partner_id', 'name', 'categories', 'wallets', ...KEY_LABELS], ['partner', 'key'])) return;
  const res = await adminCall<{ partner: AdminPartner; key: AdminKey }>(await adminTarget(f), 'POST', '/partners', {
    body,
    signal: f.io.signal,
  });
  const key = shownKey(res.data.key, Boolean(flags.showSecret));
  const { partner } = res.data;
  await showRecord(f, flags, { partner, key }, [
    { label: 'partner_id', value: partner.partner_id },
    { label: 'name', value: partner.name },
    { label: 'categories', value: partner.categories.join(' ') },
    { label: 'wallets', value: partner.wallets.map((w) => formatMoney(w.available, w.currency)).join(', ') },
    ...keyFields(key).filter((x) => x.label !== 'partner_id'),
  ]);
  if (!flags.showSecret) err(f.io, secretNote(key.api_key));
}

export async function keysList(f: Factory, flags: AdminKeysListFlags): Promise<void> {
  const res = await adminCall<AdminList<AdminKey>>(await adminTarget(f), 'GET', '/keys', {
    query: { partner_id: flags.partner },
    signal: f.io.signal,
  });
  await showList(f, flags, res.data.data, KEY_COLUMNS, 'No keys.');
}

async function showNewKey(f: Factory, flags: OutputFlags & { showSecret?: boolean }, key: AdminKey): Promise<void> {
  const shown = shownKey(key, Boolean(flags.showSecret));
  await showRecord(f, flags, shown, keyFields(shown));
  if (!flags.showSecret) err(f.io, secretNote(key.api_key));
}

export async function keysCreate(f: Factory, flags: AdminKeysCreateFlags): Promise<void> {
  const body = { allowlist: flags.allow?.length ? flags.allow : undefined };
  if (await fieldsFirst(f, flags, KEY_LABELS)) return;
  const res = await adminCall<AdminKey>(await adminTarget(f), 'POST', `/partners/${encodeURIComponent(flags.partner)}/keys`, {
    body,
    signal: f.io.signal,
  });
  await showNewKey(f, flags, res.data);
}

export type KeysRotateFlags = AdminKeysRotateFlags;

/** host:port with the loopback names folded together: `localhost:4010` and `127.0.0.1:4010` are one sandbox. */
function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const name = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return `${isLoopbackHost(name) ? 'loopback' : name}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}

type ProfileUpdate = { updated: string[]; failed?: { name: string; reason: string } };

/**
 * The profiles of this machine that used the rotated key against this sandbox (same host
 * and API key) get the new key and secret, so their next call does not fail 401.
 */
async function updateLocalProfiles(f: Factory, adminUrl: string, oldKey: string, key: AdminKey): Promise<ProfileUpdate> {
  const host = hostOf(adminUrl);
  const store = await f.config();
  const names = store.names().filter((n) => {
    const p = store.get(n);
    return p?.api_key === oldKey && host !== undefined && hostOf(p.base_url) === host;
  });
  const updated: string[] = [];
  for (const name of names) {
    try {
      // Merged into the profile as it is when written (another process may have changed it).
      const done = store.update((c) => {
        const p = c.get(name);
        if (p?.api_key !== oldKey) return false;
        c.set(name, { ...p, api_key: key.api_key, api_secret: key.api_secret });
        return true;
      });
      if (done) updated.push(name);
    } catch (e) {
      return { updated, failed: { name, reason: e instanceof Error ? e.message : String(e) } };
    }
  }
  return { updated };
}

export async function keysRotate(f: Factory, apiKey: string, flags: KeysRotateFlags): Promise<void> {
  if (await fieldsFirst(f, flags, KEY_LABELS)) return;
  const target = await adminTarget(f);
  const res = await adminCall<AdminKey>(target, 'POST', `/keys/${encodeURIComponent(apiKey)}/rotate`, { signal: f.io.signal });
  const key = res.data;
  err(f.io, `Rotated ${apiKey}: it is revoked now; the new key keeps its allowlist.\n`);
  const update: ProfileUpdate =
    flags.updateProfile === false || key.api_secret === undefined ? { updated: [] } : await updateLocalProfiles(f, target.url, apiKey, key);
  for (const name of update.updated)
    err(f.io, `Updated profile "${name}" with the new API key ${key.api_key} and its secret: its next calls use them.\n`);
  if (update.failed)
    err(f.io, `Warning: profile "${update.failed.name}" still has the revoked key (its calls will fail 401): ${update.failed.reason}.\n`);
  const shown = shownKey(key, Boolean(flags.showSecret));
  await showRecord(f, flags, shown, keyFields(shown));
  if (!flags.showSecret && (update.updated.length === 0 || update.failed)) err(f.io, secretNote(key.api_key));
}

export async function keysRevoke(f: Factory, apiKey: string, flags: OutputFlags): Promise<void> {
  if (await fieldsFirst(f, flags, KEY_LABELS)) return;
  const res = await adminCall<AdminKey>(await adminTarget(f), 'POST', `/keys/${encodeURIComponent(apiKey)}/revoke`, {
    signal: f.io.signal,
  });
  err(f.io, `Revoked ${apiKey}: requests with it now answer 401.\n`);
  await showRecord(f, flags, res.data, keyFields(res.data));
}

export async function allowlistSet(f: Factory, apiKey: string, entries: string[], flags: OutputFlags): Promise<void> {
  if (entries.length === 0)
    throw new UsageError('give at least one address or CIDR', `e.g. vouchers sandbox admin allowlist set ${apiKey} 127.0.0.0/8 ::1/128`);
  const res = await adminCall<AdminKey>(await adminTarget(f), 'PUT', `/keys/${encodeURIComponent(apiKey)}/allowlist`, {
    body: { allowlist: entries },
    signal: f.io.signal,
  });
  await showRecord(f, flags, res.data, keyFields(res.data));
}
