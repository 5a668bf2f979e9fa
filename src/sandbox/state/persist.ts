/**
 * The state file: the whole state as JSON, written atomically (temporary file in the same
 * directory, fsync, rename, fsync of the directory). Writes are coalesced: at most one
 * every 100 ms after a change, or every ten times as long as the last write took when that
 * is longer, plus a final one on close. A write holds the event loop (it is synchronous),
 * so a large state (about 2 KB of JSON an order) spends at most a tenth of its time writing
 * instead of writing all the time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { ConfigError } from '../../core/errors/index.js';
import { writeFileAtomicSync } from '../../core/io/atomic-file.js';
import { STATE_VERSION, type SandboxState } from './types.js';

export const WRITE_COALESCE_MS = 100;
/** The next write waits at least this many times as long as the last one took. */
export const WRITE_SPACING_FACTOR = 10;

export function loadState(file: string): SandboxState | undefined {
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `Cannot read the sandbox state file ${file} (${(e as Error).message})`,
      'Pass a readable file to --state (it is created when missing)',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(
      `The sandbox state file ${file} is not valid JSON (${(e as Error).message})`,
      'Move it away or pass another --state file to start from the seed',
    );
  }
  const s = parsed as Partial<SandboxState> | null;
  if (!s || typeof s !== 'object' || s.version !== STATE_VERSION || typeof s.orders !== 'object' || typeof s.keys !== 'object') {
    throw new ConfigError(
      `The file ${file} is not a sandbox state file of version ${STATE_VERSION}`,
      'Move it away or pass another --state file to start from the seed',
    );
  }
  return s as SandboxState;
}

export function writeStateAtomically(file: string, state: SandboxState): void {
  writeFileAtomicSync(file, JSON.stringify(state), { durable: true });
}

/** Write the first snapshot now, so a state file that cannot be written stops the start instead of failing later. */
export function writeInitialState(file: string, state: SandboxState): void {
  try {
    writeStateAtomically(file, state);
  } catch (e) {
    throw new ConfigError(
      `Cannot write the sandbox state file ${file} (${(e as Error).message})`,
      'Pass a path in an existing, writable directory to --state',
    );
  }
}

export class StateWriter {
  private timer: NodeJS.Timeout | undefined;
  private lastError: Error | undefined;
  /** How long the last write took, in ms. */
  private lastWriteMs = 0;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => SandboxState,
    private readonly onError: (e: Error) => void,
    private readonly write: (file: string, state: SandboxState) => void = writeStateAtomically,
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /** The wait before a write after a change: WRITE_COALESCE_MS, longer after a long write. */
  get delayMs(): number {
    return Math.max(WRITE_COALESCE_MS, Math.ceil(WRITE_SPACING_FACTOR * this.lastWriteMs));
  }

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.delayMs);
    this.timer.unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const started = this.elapsed();
    try {
      this.write(this.file, this.snapshot());
      this.lastError = undefined;
    } catch (e) {
      const err = e as Error;
      if (this.lastError?.message !== err.message) this.onError(err);
      this.lastError = err;
    } finally {
      this.lastWriteMs = this.elapsed() - started;
    }
  }
}
