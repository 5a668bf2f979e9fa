/** `vouchers profiles list`: every saved profile, the current one marked; keys masked. */
import { resolveOutput } from '../../core/output/options.js';
import { maskSecret } from '../../core/output/format.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import type { ProfilesListOptions } from './index.js';

export type { ProfilesListOptions };

export interface ProfileRow {
  name: string;
  current: boolean;
  base_url: string | null;
  api_key: string | null;
  production: boolean;
}

const COLUMNS: Column<ProfileRow>[] = [
  { field: 'current', header: ' ', get: (r) => (r.current ? '*' : ''), style: (t, c) => c.green(t) },
  { field: 'name', header: 'NAME', style: (t, c, r) => (r.current ? c.bold(t) : t) },
  // A URL is an identifier: shown whole (a table too wide for it becomes one block a row).
  { field: 'base_url', header: 'BASE URL', shrink: false },
  { field: 'api_key', header: 'API KEY' },
  {
    field: 'production',
    header: 'PRODUCTION',
    get: (r) => (r.production ? 'yes' : 'no'),
    style: (t, c) => (t === 'yes' ? c.yellow(t) : c.dim(t)),
  },
];

export async function run(f: Factory, options: ProfilesListOptions): Promise<void> {
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (
    await handleFieldsFlag(
      f.io,
      settings,
      COLUMNS.map((c) => c.field),
    )
  )
    return;
  const store = await f.config();
  const current = store.currentName();
  const rows: ProfileRow[] = store.names().map((name) => {
    const p = store.get(name) ?? {};
    return {
      name,
      current: name === current,
      base_url: p.base_url ?? null,
      api_key: p.api_key ? maskSecret(p.api_key) : null,
      production: p.production === true,
    };
  });
  await printList(f.io, rows, COLUMNS, settings, {
    empty:
      'No profiles yet. To try every command against the local sandbox (it writes a "local" profile): vouchers sandbox start. For your own API: vouchers profiles add NAME --base-url URL --api-key KEY',
  });
}
