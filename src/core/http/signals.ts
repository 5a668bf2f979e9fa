/** The abort signals of a call: the caller's, the client's (Ctrl-C) and each attempt's deadline. */
import { InterruptedError } from '../errors/index.js';
import { monotonicMs } from '../time/monotonic.js';

/** The error a call ends with when its signal fires: the signal's own InterruptedError, or a new one. */
export function interrupted(signal: AbortSignal | undefined): InterruptedError {
  const reason: unknown = signal?.reason;
  return reason instanceof InterruptedError ? reason : new InterruptedError();
}

/**
 * Resolves once the event loop has polled for I/O, signals included. A signal that came
 * while the command ran synchronously (a chunk of the CLI read from disk as it loaded) is
 * emitted to its listener only at that poll: a write waits for it, so that it never leaves
 * once stopped. Two turns: the first may run in the check phase of the loop turn under way,
 * before it polls again; the second runs after that poll.
 */
export async function afterNextPoll(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

export function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

/** The longest delay a Node timer takes (a longer one fires after 1 ms, with a warning). */
const TIMER_MAX_MS = 2 ** 31 - 1;

/**
 * The signal of one attempt: it aborts when `long` does (the call's signal, which lives as
 * long as the process: Ctrl-C) or at its deadline, `timeoutMs` after it was made, whichever
 * comes first; `expired` says the deadline fired.
 *
 * It is what both transports take as the request's signal: the EventEmitter form that
 * undici's request API accepts (`aborted`, `reason`, an `abort` event through `once` and
 * `removeListener`), which node-transport.ts follows the same way. Neither an
 * AbortController nor a timer is made per attempt: an EventTarget listener added and
 * removed per request, a controller and a timer cost more than the rest of the deadline's
 * work in a bulk run. The attempts in flight are kept in order of their deadlines, and one
 * timer is armed for the earliest; when it fires, every attempt whose deadline has come
 * (on the monotonic clock, so never before it) is aborted, and the timer armed again for
 * the next. Attempts end mostly in the order they started, so their deadlines are in order
 * too and taking one out or putting one in is a step at one end of the list. Ctrl-C: each
 * long-lived signal carries one listener that aborts the attempts in flight following it.
 */
export class AttemptSignal {
  aborted = false;
  reason: unknown = undefined;
  /** The deadline fired (not the long-lived signal). */
  expired = false;
  private listener: (() => void) | undefined = undefined;
  private more: (() => void)[] | undefined = undefined;
  /** In the list of attempts in flight. */
  prev: AttemptSignal | undefined = undefined;
  next: AttemptSignal | undefined = undefined;
  linked = false;

  constructor(
    /** monotonicMs() of the deadline. */
    readonly at: number,
    readonly long: AbortSignal | undefined,
  ) {}

  /** The EventEmitter form of undici's request signal: one `abort` event. */
  once(event: string, f: () => void): this {
    if (event !== 'abort') return this;
    if (this.listener === undefined) this.listener = f;
    else (this.more ??= []).push(f);
    return this;
  }

  on(event: string, f: () => void): this {
    return this.once(event, f);
  }

  removeListener(event: string, f: () => void): this {
    if (event !== 'abort') return this;
    if (this.listener === f) this.listener = undefined;
    else if (this.more) this.more = this.more.filter((g) => g !== f);
    return this;
  }

  off(event: string, f: () => void): this {
    return this.removeListener(event, f);
  }

  /** Abort with `reason` (once): the listeners hear it, in the order they came. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    unlink(this);
    const first = this.listener;
    const more = this.more;
    this.listener = undefined;
    this.more = undefined;
    first?.();
    if (more) for (const f of more) f();
  }

  /** The attempt ended: its deadline no longer applies. */
  dispose(): void {
    this.listener = undefined;
    this.more = undefined;
    unlink(this);
  }
}

/** The attempts in flight, earliest deadline first. */
let head: AttemptSignal | undefined;
let tail: AttemptSignal | undefined;
let timer: NodeJS.Timeout | undefined;
/** When the timer fires (monotonicMs), or Infinity when it is not armed. */
let armedFor = Infinity;
const followed = new WeakSet<AbortSignal>();

function arm(at: number, now: number): void {
  if (timer !== undefined) clearTimeout(timer);
  armedFor = at;
  timer = setTimeout(fire, Math.min(TIMER_MAX_MS, Math.max(1, Math.ceil(at - now))));
}

function disarm(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  armedFor = Infinity;
}

/** Abort every attempt whose deadline has come; arm the timer for the next one. */
function fire(): void {
  timer = undefined;
  armedFor = Infinity;
  const now = monotonicMs();
  while (head && head.at <= now) {
    const due = head;
    due.expired = true;
    due.abort(undefined);
  }
  if (head) arm(head.at, now);
}

function link(s: AttemptSignal, now: number): void {
  // After the last one whose deadline is not later (nearly always the tail).
  let after = tail;
  while (after && after.at > s.at) after = after.prev;
  s.prev = after;
  s.next = after ? after.next : head;
  if (s.next) s.next.prev = s;
  else tail = s;
  if (after) after.next = s;
  else head = s;
  s.linked = true;
  // A timer armed for a time already passed by the head still fires in time for it.
  if (s.at < armedFor) arm(s.at, now);
}

function unlink(s: AttemptSignal): void {
  if (!s.linked) return;
  s.linked = false;
  if (s.prev) s.prev.next = s.next;
  else head = s.next;
  if (s.next) s.next.prev = s.prev;
  else tail = s.prev;
  s.prev = undefined;
  s.next = undefined;
  // Nothing in flight: no timer left to hold the process. Otherwise the timer stays armed
  // (for a time at or before the new head's deadline) and, when it fires early, is armed again.
  if (!head) disarm();
}

/** Abort the attempts in flight that follow `long`. */
function follow(long: AbortSignal): void {
  if (followed.has(long)) return;
  followed.add(long);
  long.addEventListener(
    'abort',
    () => {
      for (let s = head; s;) {
        const next = s.next;
        if (s.long === long) s.abort(long.reason);
        s = next;
      }
    },
    { once: true },
  );
}

/**
 * The signal of one attempt (see AttemptSignal): aborted at once when `long` already is,
 * else in flight until disposed, aborted or expired.
 */
export function attemptSignal(long: AbortSignal | undefined, timeoutMs: number): AttemptSignal {
  const now = monotonicMs();
  const s = new AttemptSignal(now + timeoutMs, long);
  if (long?.aborted) {
    s.abort(long.reason);
    return s;
  }
  if (long) follow(long);
  link(s, now);
  return s;
}

/** Attempts in flight (for tests). */
export function attemptsInFlight(): number {
  let n = 0;
  for (let s = head; s; s = s.next) n++;
  return n;
}
