/**
 * How long work goes on before a spinner shows (as gh's). Answers of an API nearby (and of the
 * local sandbox) come well within it, TLS handshake included, so they never flicker one; a
 * wait past it is one the user notices, and the spinner shows well before the second after
 * which a silent terminal looks stuck.
 */
export const SHOW_AFTER_MS = 500;

/** Run `fn` once after `ms`; returns what cancels it. The timer does not keep the process alive. */
export function unrefTimer(ms: number, fn: () => Promise<void> | void): () => void {
  const t = setTimeout(() => void Promise.resolve(fn()).catch(() => undefined), ms);
  t.unref?.();
  return () => clearTimeout(t);
}
