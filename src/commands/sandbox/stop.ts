/**
 * `vouchers sandbox stop`: SIGTERM the sandbox named by the pid file, wait for it to exit
 * (it shuts down cleanly and flushes its state file), remove the pid file.
 */
import { CliError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { isProcessAlive, signalProcess } from '../../core/io/processes.js';
import { printJson } from '../../core/output/print.js';
import { startSpinner } from '../../core/output/spinner.js';
import type { Factory } from '../../core/run/factory.js';
import { readPidFile, removePidFile } from './pid-file.js';
import type { StopFlags } from './index.js';

export type { StopFlags };

const STOP_TIMEOUT_MS = 10_000;
const POLL_MS = 50;

export async function run(f: Factory, flags: StopFlags): Promise<void> {
  const { io, clock } = f;
  const store = await f.config();
  const record = readPidFile(store.dir);
  if (!record || !isProcessAlive(record.pid)) {
    if (record) removePidFile(store.dir, record.pid);
    throw new CliError(
      'not_found',
      `no sandbox is running${record ? ` (process ${record.pid} of the pid file has already exited; removed the file)` : ''}`,
      'start one in the background with: vouchers sandbox start --detach',
    );
  }
  signalProcess(record.pid, 'SIGTERM');
  let deadline = clock.now() + STOP_TIMEOUT_MS;
  let forced = false;
  // It saves its state before it exits: a spinner on a terminal while it does.
  const spinner = await startSpinner(io, `Stopping the sandbox (pid ${record.pid})…`, {
    quiet: flags.json,
    color: f.globals().color !== false,
  });
  try {
    while (isProcessAlive(record.pid)) {
      if (clock.now() > deadline) {
        if (forced)
          throw new CliError(
            'unexpected',
            `process ${record.pid} did not exit, even after SIGKILL`,
            'check it with ps, and stop it by hand',
          );
        spinner.stop();
        err(io, `The sandbox (pid ${record.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000}s; sending SIGKILL.\n`);
        signalProcess(record.pid, 'SIGKILL');
        forced = true;
        deadline = clock.now() + 2_000;
      }
      await clock.sleep(POLL_MS, io.signal);
    }
  } finally {
    spinner.stop();
  }
  removePidFile(store.dir, record.pid);
  if (flags.json) await printJson(io, { stopped: true, pid: record.pid, base_url: record.base_url, forced });
  err(io, `Stopped the sandbox (pid ${record.pid}) that served ${record.base_url}.\n`);
}
