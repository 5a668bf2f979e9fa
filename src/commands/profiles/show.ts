/**
 * `vouchers profiles show [NAME]`: every setting of a profile as this run resolves it
 * (flag > env > profile > default) with where it came from. Secrets are masked.
 */
import { resolveProfileUnchecked } from '../../core/config/resolve.js';
import { ENV, type ResolvedProfile, type ValueSource } from '../../core/config/types.js';
import { formatDuration } from '../../core/http/duration.js';
import { resolveOutput } from '../../core/output/options.js';
import { maskSecret } from '../../core/output/format.js';
import { handleFieldsFlag, printJson, printList, type Column } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import { profileNotFound } from './not-found.js';
import type { ProfilesShowOptions } from './index.js';

export type { ProfilesShowOptions };

interface SettingRow {
  setting: string;
  value: string;
  source: string;
}

const COLUMNS: Column<SettingRow>[] = [
  { field: 'setting', header: 'SETTING' },
  // Values are ids, URLs, masked keys, numbers: never cut (a terminal too narrow for the table gets one line a setting).
  { field: 'value', header: 'VALUE', shrink: false },
  { field: 'source', header: 'SOURCE', shrink: true, style: (t, c) => c.dim(t) },
];

/** The environment variable behind each field that env can set. */
const ENV_OF: Partial<Record<string, string>> = {
  name: ENV.profile,
  base_url: ENV.baseUrl,
  api_key: ENV.apiKey,
  api_secret: ENV.apiSecret,
  webhook_secret: ENV.webhookSecret,
  signing_path: ENV.signingPath,
  limits_orders_per_minute: ENV.ordersPerMinute,
  limits_general_per_hour: ENV.generalPerHour,
  timeout_ms: ENV.timeout,
  max_retries: ENV.maxRetries,
  production: ENV.production,
  allow_insecure_http: ENV.allowInsecureHttp,
};
const FLAG_OF: Partial<Record<string, string>> = {
  name: '--profile',
  base_url: '--base-url',
  timeout_ms: '--timeout',
  max_retries: '--max-retries',
};

/** Where a setting came from; `argument` for the name given as `profiles show NAME`. */
type ShowSource = ValueSource | 'argument';

function sourceLabel(field: string, source: ShowSource | undefined, set: boolean): string {
  switch (source) {
    case 'argument':
      return 'argument';
    case 'flag':
      return `flag ${FLAG_OF[field] ?? ''}`.trim();
    case 'env':
      return `env ${ENV_OF[field] ?? ''}`.trim();
    case 'profile':
      return field === 'name' ? 'current profile' : 'profile';
    default:
      return set ? 'default' : 'not set';
  }
}

/** The resolved profile with every secret masked: what `--json` prints. */
export function maskedProfile(
  p: ResolvedProfile,
  configFile: string,
  sources: Record<string, ShowSource> = p.sources,
): Record<string, unknown> {
  return {
    name: p.name,
    exists: p.exists,
    config_file: configFile,
    base_url: p.base_url ?? null,
    api_key: p.api_key ? maskSecret(p.api_key) : null,
    api_secret: p.api_secret ? maskSecret(p.api_secret) : null,
    webhook_secret: p.webhook_secret ? maskSecret(p.webhook_secret) : null,
    signing_path: p.signing_path,
    limits: p.limits,
    timeout_ms: p.timeout_ms,
    max_retries: p.max_retries,
    production: p.production,
    allow_insecure_http: p.allow_insecure_http === true,
    admin_url: p.admin_url ?? null,
    admin_token: p.admin_token ? maskSecret(p.admin_token) : null,
    certify_products: p.certify_products ?? {},
    sources,
  };
}

const JSON_FIELDS = [
  'name',
  'exists',
  'config_file',
  'base_url',
  'api_key',
  'api_secret',
  'webhook_secret',
  'signing_path',
  'limits',
  'timeout_ms',
  'max_retries',
  'production',
  'allow_insecure_http',
  'admin_url',
  'admin_token',
  'certify_products',
  'sources',
];

function rowsOf(p: ResolvedProfile, s: Record<string, ShowSource>): SettingRow[] {
  const row = (setting: string, field: keyof ResolvedProfile['sources'], value: string | undefined): SettingRow => ({
    setting,
    value: value ?? '',
    source: sourceLabel(field, s[field], value !== undefined),
  });
  const rows = [
    row('name', 'name', p.name + (p.exists ? '' : ' (not saved)')),
    row('base_url', 'base_url', p.base_url),
    row('api_key', 'api_key', p.api_key ? maskSecret(p.api_key) : undefined),
    row('api_secret', 'api_secret', p.api_secret ? maskSecret(p.api_secret) : undefined),
    row('webhook_secret', 'webhook_secret', p.webhook_secret ? maskSecret(p.webhook_secret) : undefined),
    row('signing.path', 'signing_path', p.signing_path),
    row('limits.orders_per_minute', 'limits_orders_per_minute', String(p.limits.orders_per_minute)),
    row('limits.general_per_hour', 'limits_general_per_hour', String(p.limits.general_per_hour)),
    row('timeout', 'timeout_ms', formatDuration(p.timeout_ms)),
    row('max_retries', 'max_retries', String(p.max_retries)),
    row('production', 'production', String(p.production)),
    row('allow_insecure_http', 'allow_insecure_http', String(p.allow_insecure_http === true)),
  ];
  if (p.admin_url) rows.push(row('admin_url', 'admin_url', p.admin_url));
  if (p.admin_token) rows.push(row('admin_token', 'admin_token', maskSecret(p.admin_token)));
  // The server's products certify orders (certify --product), saved per role.
  for (const [role, product] of Object.entries(p.certify_products ?? {}))
    rows.push({ setting: `certify.product.${role}`, value: product, source: 'profile' });
  return rows;
}

export async function run(f: Factory, name: string | undefined, options: ProfilesShowOptions): Promise<void> {
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  const json = settings.format === 'json' || settings.format === 'ndjson';
  if (await handleFieldsFlag(f.io, settings, json ? JSON_FIELDS : COLUMNS.map((c) => c.field))) return;
  const store = await f.config();
  if (name !== undefined && store.get(name) === undefined) throw profileNotFound(store, name);
  const g = f.globals();
  const p = resolveProfileUnchecked(store, f.io.env, { ...g, profile: name ?? g.profile });
  // The name given here is an argument, not the --profile flag it is resolved through.
  const sources: Record<string, ShowSource> = name !== undefined ? { ...p.sources, name: 'argument' } : p.sources;
  if (json) {
    const record = maskedProfile(p, store.path, sources);
    await printJson(f.io, settings.fields ? Object.fromEntries(settings.fields.map((k) => [k, record[k]])) : record);
    return;
  }
  await printList(f.io, rowsOf(p, sources), COLUMNS, settings, { keyed: true });
}
