/**
 * `vouchers sandbox status`: whether the sandbox named by the pid file runs, its URLs,
 * dialect, uptime, and what its admin surface reports (orders, clock). Exit 0 either way; the JSON
 * has `running`.
 */
import { formatDuration } from '../../core/http/duration.js';
import { err } from '../../core/io/io.js';
import { isProcessAlive } from '../../core/io/processes.js';
import { resolveOutput } from '../../core/output/options.js';
import { printRecord } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import { adminCall } from '../../api/sandbox-admin.js';
import { readPidFile, removePidFile } from './pid-file.js';
import type { StatusFlags } from './index.js';

export type { StatusFlags };

interface Overview {
  dialect?: string;
  counts?: { orders?: number; events?: number; partners?: number };
  clock?: { now?: string; offset_ms?: number };
  time_scale?: number;
}

export async function run(f: Factory, flags: StatusFlags): Promise<void> {
  const { io } = f;
  const settings = resolveOutput(io, { json: flags.json }, f.globals().color !== false);
  const store = await f.config();
  const record = readPidFile(store.dir);
  if (!record || !isProcessAlive(record.pid)) {
    if (record) removePidFile(store.dir, record.pid);
    // Data on stdout either way (scripts read `status`), the explanation on stderr.
    await printRecord(io, { running: false }, [{ label: 'status', value: 'not running', style: (t, c) => c.yellow(t) }], settings);
    if (settings.format !== 'json')
      err(
        io,
        `No sandbox is running${record ? ` (removed the pid file of process ${record.pid}, which has exited)` : ''}.\nStart one with: vouchers sandbox start --detach\n`,
      );
    return;
  }
  const token = store.get(record.profile)?.admin_token;
  let overview: Overview | undefined;
  let problem: string | undefined;
  if (token) {
    try {
      overview = (
        await adminCall<Overview>({ url: record.admin_url, token, profile: record.profile }, 'GET', '/', {
          signal: io.signal,
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
  const status = {
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
  await printRecord(
    io,
    status,
    [
      { label: 'status', value: overview ? 'running' : 'running, not answering', style: (t, c) => (overview ? c.green(t) : c.yellow(t)) },
      { label: 'pid', value: status.pid },
      { label: 'base_url', value: status.base_url },
      { label: 'admin_url', value: status.admin_url },
      { label: 'profile', value: status.profile },
      { label: 'dialect', value: status.dialect ?? '' },
      { label: 'uptime', value: formatDuration(uptimeMs) },
      { label: 'orders', value: status.orders ?? '' },
      { label: 'events', value: status.events ?? '' },
      { label: 'sandbox_clock', value: status.sandbox_clock ?? '' },
      ...(status.log_file ? [{ label: 'log_file', value: status.log_file }] : []),
    ],
    settings,
  );
  if (problem) err(io, `The admin surface did not answer: ${problem}\n`);
}
