/** Waiting in tests for something that will happen: poll a condition, never a fixed sleep. */

/**
 * Poll `check` every few milliseconds until it returns a truthy value, and return that value;
 * fail naming `what` after `ms` milliseconds.
 */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what = 'the condition',
  ms = 5_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
