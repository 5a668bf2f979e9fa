/** `vouchers sandbox start` run in-process for a test, stopped (as Ctrl-C would) when the test ends. */
import { onTestFinished } from 'vitest';
import { run } from '../../src/main.js';
import { testIO, type TestIO } from './io.js';
import { until } from './until.js';

export interface RunningSandboxCommand<Info> {
  io: TestIO;
  /** The command's exit code, once it stopped. */
  done: Promise<number>;
  /** The summary it printed with --json (an empty object when it printed none). */
  info: Info;
}

/** `sandbox start --port 0 --json …args` with this config dir, once it says it is ready (or ended). */
export async function startSandboxCommand<Info = Record<string, unknown>>(
  configDir: string,
  args: string[] = [],
): Promise<RunningSandboxCommand<Info>> {
  const io = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir } });
  const done = run(['sandbox', 'start', '--port', '0', '--json', ...args], io);
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  onTestFinished(async () => {
    io.interrupt();
    await done;
  });
  await until(() => io.stderrText().includes('Sandbox ready') || finished, 'the sandbox to start', 10_000);
  return { io, done, info: JSON.parse(io.stdoutText() || '{}') as Info };
}
