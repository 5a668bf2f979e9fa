/** Spinners on stderr, only on a TTY (ora, loaded on demand); silent otherwise. */
import type { IO } from '../io/io.js';
import { colorEnabled } from '../io/io.js';

export interface Spinner {
  text(message: string): void;
  succeed(message?: string): void;
  fail(message?: string): void;
  /** Print a line above the spinner (or plainly when there is none). */
  info(message: string): void;
  stop(): void;
}

export async function startSpinner(io: IO, message: string, options: { quiet?: boolean } = {}): Promise<Spinner> {
  // A terminal that reports 0 columns (some pseudo-terminals) would make ora clear lines forever.
  const columns = (io.stderr as { columns?: number }).columns;
  if (!io.stderrIsTTY || options.quiet || columns === 0) {
    return {
      text: () => undefined,
      succeed: () => undefined,
      fail: () => undefined,
      info: (m) => { if (!options.quiet) io.stderr.write(m + '\n'); },
      stop: () => undefined,
    };
  }
  const { default: ora } = await import('ora');
  const s = ora({ text: message, stream: io.stderr as NodeJS.WritableStream, color: 'cyan', isEnabled: true, discardStdin: false });
  if (!colorEnabled(io, 'stderr')) s.color = 'white';
  s.start();
  return {
    text: (m) => { s.text = m; },
    succeed: (m) => { s.succeed(m); },
    fail: (m) => { s.fail(m); },
    info: (m) => { s.stopAndPersist({ symbol: ' ', text: m }); s.start(); },
    stop: () => { s.stop(); },
  };
}
