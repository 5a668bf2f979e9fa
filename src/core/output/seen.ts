/**
 * The codes and secrets this run has seen: the profile's own secrets, and every code or
 * secret an answer carried under a code's or secret's name. A server's free text (an error
 * message) that quotes one of them is masked (mask-text.ts). Kept per run: main.ts forgets
 * them when a run starts. Dependency-free, so that main.ts can import it at once.
 */

/** Shorter values are left out: a 4-digit pin would mask every such number in a message. */
export const MIN_CODE = 6;
export const MIN_SECRET = 8;
/** At most this many of each are kept (a bulk run sees thousands of codes). */
const MAX_KEPT = 20_000;

const codes = new Set<string>();
const secrets = new Set<string>();

function add(set: Set<string>, value: unknown, min: number): void {
  if (typeof value === 'number') value = String(value);
  if (typeof value !== 'string' || value.trim().length < min || set.has(value)) return;
  if (set.size >= MAX_KEPT) set.delete(set.values().next().value as string);
  set.add(value.trim());
}

export function rememberCode(value: unknown): void {
  add(codes, value, MIN_CODE);
}

export function rememberSecret(value: unknown): void {
  add(secrets, value, MIN_SECRET);
}

/** The values seen that `text` holds, longest first (a code that holds another is replaced whole). */
export function seenIn(text: string): { codes: string[]; secrets: string[] } {
  const found = (set: Set<string>) => [...set].filter((v) => text.includes(v)).sort((a, b) => b.length - a.length);
  return { codes: found(codes), secrets: found(secrets) };
}

/** A new run: nothing seen yet. */
export function forgetSeen(): void {
  codes.clear();
  secrets.clear();
}
