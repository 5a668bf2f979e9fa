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

/** What follows each long-lived signal: one listener on it, whatever the number of attempts in flight. */
const followers = new WeakMap<AbortSignal, Set<() => void>>();

function follow(long: AbortSignal, f: () => void): () => void {
  let set = followers.get(long);
  if (!set) {
    const fresh = new Set<() => void>();
    long.addEventListener(
      'abort',
      () => {
        for (const g of [...fresh]) g();
        fresh.clear();
      },
      { once: true },
    );
    followers.set(long, fresh);
    set = fresh;
  }
  set.add(f);
  const from = set;
  return () => {
    from.delete(f);
  };
}

/**
 * The signal of one attempt: it aborts when `long` does (the call's signal, which lives as
 * long as the process: Ctrl-C) or once `timeoutMs` have passed, whichever comes first;
 * `expired()` says the deadline fired. One controller and one timer per attempt, and
 * nothing left on `long` once disposed: AbortSignal.any leaves an entry on its sources for
 * every call, which a long bulk run piles up, and a listener per attempt on `long` costs an
 * add and a remove per row and, past 10 attempts in flight, a MaxListenersExceededWarning
 * on stderr. So `long` carries one listener that fans out to the attempts following it.
 */
export function attemptSignal(
  long: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; expired: () => boolean; dispose: () => void } {
  const c = new AbortController();
  if (long?.aborted) {
    c.abort(long.reason);
    return { signal: c.signal, expired: () => false, dispose: () => undefined };
  }
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    c.abort();
  }, timeoutMs);
  const unfollow = long ? follow(long, () => c.abort(long.reason)) : undefined;
  return {
    signal: c.signal,
    expired: () => expired,
    dispose: () => {
      clearTimeout(timer);
      unfollow?.();
    },
  };
}
