/**
 * `vouchers sandbox status`: the sandboxes of this config folder (each profile's, or only
 * the one --profile names) that run, with their URLs, dialect, uptime, and what each admin
 * surface reports (orders, clock). Exit 0 either way; the JSON has `running` and
 * `sandboxes`, and the fields of the one sandbox when one is listed.
 */
import { formatDuration } from '../../core/http/duration.js';
import { err, out } from '../../core/io/io.js';
import { notice } from '../../core/output/notice.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import { printJson, printList, printRecord, type Column } from '../../core/output/print.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import type { ConfigStore } from '../../core/config/types.js';
import type { Factory } from '../../core/run/factory.js';
import { adminCall } from '../../api/sandbox-admin.js';
import { LOCAL_PROFILE } from './local-profile.js';
import type { PidEntry } from './pid-file.js';
import { describeSandboxes, runningSandboxes, staleNote } from './running.js';
import type { StatusFlags } from './index.js';

export type { StatusFlags };

interface Overview {
  dialect?: string;
  counts?: { orders?: number; events?: number; partners?: number };
  clock?: { now?: string; offset_ms?: number };
  time_scale?: number;
}

interface SandboxStatus {
  running: true;
  answering: boolean;
  pid: number;
  base_url: string;
  admin_url: string;
  profile: string;
  dialect: string | null;
  started_at: string;
  uptime_seconds: number;
  orders: number | null;
  events: number | null;
  sandbox_clock: string | null;
  log_file: string | null;
}

/** One running sandbox as status shows it, and why its admin surface did not answer. */
async function statusOf(f: Factory, store: ConfigStore, { record }: PidEntry): Promise<{ status: SandboxStatus; problem?: string }> {
  const token = store.get(record.profile)?.admin_token;
  let overview: Overview | undefined;
  let problem: string | undefined;
  if (token) {
    try {
      overview = (
        await adminCall<Overview>({ url: record.admin_url, token, profile: record.profile }, 'GET', '/', {
          signal: f.io.signal,
          timeoutMs: 3_000,
        })
      ).data;
    } catch (e) {
      problem = (e as Error).message;
    }
  } else {
    problem = `profile "${record.profile}" has no admin token`;
  }
  const uptimeMs = Math.max(0, f.clock.now() - Date.parse(record.started_at));
  const status: SandboxStatus = {
    running: true,
    answering: overview !== undefined,
    pid: record.pid,
    base_url: record.base_url,
    admin_url: record.admin_url,
    profile: record.profile,
    dialect: overview?.dialect ?? record.dialect ?? null,
    started_at: record.started_at,
    uptime_seconds: Math.round(uptimeMs / 1000),
    orders: overview?.counts?.orders ?? null,
    events: overview?.counts?.events ?? null,
    sandbox_clock: overview?.clock?.now ?? null,
    log_file: record.log_file ?? null,
  };
  return problem === undefined ? { status } : { status, problem };
}

const stateText = (s: SandboxStatus) => (s.answering ? 'running' : 'running, not answering');
const stateStyle = (t: string, c: { green(t: string): string; yellow(t: string): string }) => (t === 'running' ? c.green(t) : c.yellow(t));

async function printOne(f: Factory, s: SandboxStatus, settings: OutputSettings): Promise<void> {
  await printRecord(
    f.io,
    { ...s, sandboxes: [s] },
    [
      { label: 'status', value: stateText(s), style: stateStyle },
      { label: 'pid', value: s.pid },
      { label: 'base_url', value: s.base_url },
      { label: 'admin_url', value: s.admin_url },
      { label: 'profile', value: s.profile },
      { label: 'dialect', value: s.dialect ?? '' },
      { label: 'uptime', value: formatDuration(s.uptime_seconds * 1000) },
      { label: 'orders', value: s.orders ?? '' },
      { label: 'events', value: s.events ?? '' },
      { label: 'sandbox_clock', value: s.sandbox_clock ?? '' },
      ...(s.log_file ? [{ label: 'log_file', value: s.log_file }] : []),
    ],
    settings,
  );
}

/** Piped: one tab-separated line per sandbox, these columns. */
const COLUMNS: Column<SandboxStatus>[] = [
  { field: 'profile' },
  { field: 'status', get: stateText, style: (t, c) => stateStyle(t, c) },
  { field: 'pid', align: 'right' },
  { field: 'base_url' },
  { field: 'dialect', get: (s) => s.dialect ?? '' },
  { field: 'uptime', get: (s) => formatDuration(s.uptime_seconds * 1000) },
  { field: 'orders', get: (s) => s.orders ?? '' },
  { field: 'events', get: (s) => s.events ?? '' },
  { field: 'log_file', get: (s) => s.log_file ?? '' },
];

export async function run(f: Factory, flags: StatusFlags): Promise<void> {
  const { io } = f;
  const settings = resolveOutput(io, { json: flags.json }, f.globals().color !== false);
  const store = await f.config();
  const only = f.globals().profile;
  const { running, removed } = runningSandboxes(store.dir);
  for (const e of removed) notice(io, settings, 'STALE_PID_FILE', staleNote(e));
  const listed = only === undefined ? running : running.filter((e) => e.record.profile === only);
  if (listed.length === 0) {
    // Data on stdout either way (scripts read `status`), the explanation on stderr.
    await printRecord(
      io,
      { running: false, sandboxes: [] },
      [{ label: 'status', value: 'not running', style: (t, c) => c.yellow(t) }],
      settings,
    );
    if (settings.format !== 'json') {
      const others = running.length > 0 ? `; running: ${describeSandboxes(running)}` : '';
      const profileFlag = only === undefined || only === LOCAL_PROFILE ? '' : ` --profile ${shellQuote(only)}`;
      err(
        io,
        `No sandbox is running${only === undefined ? '' : ` for the profile "${only}"`}${others}.\nStart one with: vouchers sandbox start --detach${profileFlag}\n`,
      );
    }
    return;
  }
  const seen = await Promise.all(listed.map((e) => statusOf(f, store, e)));
  const statuses = seen.map((s) => s.status);
  if (statuses.length === 1) await printOne(f, statuses[0]!, settings);
  else if (settings.format === 'json') await printJson(io, { running: true, count: statuses.length, sandboxes: statuses });
  else if (settings.format === 'tsv') await printList(io, statuses, COLUMNS, settings);
  else {
    // On a terminal, one record each (the same as for one sandbox): no table to cut to its width.
    for (const [i, one] of statuses.entries()) {
      if (i > 0) await out(io, '\n');
      await printOne(f, one, settings);
    }
  }
  for (const { status, problem } of seen)
    if (problem) err(io, `The admin surface of the sandbox of profile "${status.profile}" did not answer: ${problem}\n`);
}
