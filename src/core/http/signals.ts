/** The abort signals of a call: the caller's, the client's (Ctrl-C) and each attempt's deadline. */
import { InterruptedError } from '../errors/index.js';

/** The error a call ends with when its signal fires: the signal's own InterruptedError, or a new one. */
export function interrupted(signal: AbortSignal | undefined): InterruptedError {
  const reason: unknown = signal?.reason;
  return reason instanceof InterruptedError ? reason : new InterruptedError();
}

export function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

/**
 * A signal that aborts when `long` or `short` does, with nothing left on `long` once
 * disposed. Per attempt, where `long` lives for the whole process (Ctrl-C): AbortSignal.any
 * leaves an entry on its sources for every call, which a long bulk run piles up.
 */
export function linkSignals(long: AbortSignal | undefined, short: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  if (!long) return { signal: short, dispose: () => undefined };
  const c = new AbortController();
  const fromLong = () => c.abort(long.reason);
  const fromShort = () => c.abort(short.reason);
  if (long.aborted) fromLong();
  else if (short.aborted) fromShort();
  else {
    long.addEventListener('abort', fromLong, { once: true });
    short.addEventListener('abort', fromShort, { once: true });
  }
  return {
    signal: c.signal,
    dispose: () => {
      long.removeEventListener('abort', fromLong);
      short.removeEventListener('abort', fromShort);
    },
  };
}
