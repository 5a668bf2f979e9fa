/**
 * V8 flags set while the CLI runs. V8 accepts a code cache only under the flags it was made
 * with, its own cache of Node's built-in modules included: a flag set at start-up would
 * make every built-in module loaded afterwards compile from source (about 10 ms of a
 * one-shot command on Node 22 and 24). So flags are set only by the long runs that need
 * them (the batch's heap, undici's WebAssembly parser), here; the launcher (src/launch.ts)
 * writes its code cache before they change, as a later run without them would reject a
 * cache made after.
 */

/** Set V8 flags for the rest of this process; false if this runtime refused one. */
export function setV8Flags(...flags: string[]): boolean {
  const beforeChange = (globalThis as Record<symbol, unknown>)[Symbol.for('vouchers.before-v8-flags')];
  if (typeof beforeChange === 'function') (beforeChange as () => void)();
  const v8 = process.getBuiltinModule('node:v8') as typeof import('node:v8');
  try {
    for (const flag of flags) v8.setFlagsFromString(flag);
    return true;
  } catch {
    return false;
  }
}
