/** An IO with in-memory streams, for running commands in tests. */
import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../src/core/io/io.js';

export interface TestIO extends IO {
  /** Everything written to stdout so far. */
  stdoutText(): string;
  stderrText(): string;
  /** Abort the run as Ctrl-C would. */
  interrupt(): void;
}

export interface TestIOOptions {
  stdin?: string;
  env?: Record<string, string | undefined>;
  tty?: boolean;
  stdinTTY?: boolean;
  /** stdout a terminal or not, apart from stderr (default: `tty`). */
  stdoutTTY?: boolean;
  cwd?: string;
  columns?: number;
}

export function testIO(options: TestIOOptions = {}): TestIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let outText = '';
  let errText = '';
  stdout.on('data', (c: Buffer) => {
    outText += c.toString('utf8');
  });
  stderr.on('data', (c: Buffer) => {
    errText += c.toString('utf8');
  });
  const controller = new AbortController();
  const tty = options.tty ?? false;
  return {
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    stdout,
    stderr,
    env: { NO_COLOR: undefined, ...options.env },
    cwd: options.cwd ?? process.cwd(),
    stdinIsTTY: options.stdinTTY ?? false,
    stdoutIsTTY: options.stdoutTTY ?? tty,
    stderrIsTTY: tty,
    signal: controller.signal,
    columns: options.columns ?? 120,
    stdoutText: () => outText,
    stderrText: () => errText,
    interrupt: () => controller.abort(new Error('interrupted')),
  };
}
