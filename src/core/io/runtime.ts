import { setV8Flags } from './v8-flags.js';

/** The Node.js version and platform this run is on (for reports such as certify's). */
export function runtimeInfo(): { node: string; platform: string } {
  return { node: process.version, platform: `${process.platform}-${process.arch}` };
}

/**
 * For a long streaming run (a bulk file): keep V8's heap near what is live. Under a steady
 * stream of short-lived request objects V8 grows its young generation step by step to its
 * maximum (16 MB a semi-space) and lets the old generation reach up to four times what
 * survived the last full collection before the next one: peak memory then climbs with the
 * length of the run although nothing is retained (1,000 rows: 83 MB; 10,000: 105 MB).
 * Growth factor 1 keeps the young generation at its starting size, and a 30 % heap
 * growth collects the old generation sooner, for a few more cheap collections
 * (10,000 rows: 89 MB). V8 reads both flags each time it sizes the heap, so setting them
 * while running takes effect. Measured by `npm run bench -- bulk-memory`.
 */
export function keepHeapSmall(): void {
  // A runtime without these flags: memory use is only less tight.
  setV8Flags('--semi-space-growth-factor=1', '--heap-growing-percent=30');
}

/** The V8 interrupt budget set by optimiseSooner (V8's own on Node 20: 67,584). */
export const BULK_INTERRUPT_BUDGET = 15_000;

/**
 * For a run that sends thousands of requests (a bulk file), on Node 20 (V8 11): hand hot
 * functions to the optimising compiler after less bytecode has run in the interpreter
 * (the interrupt budget). The run's hot path (the request pipeline, undici, the journal)
 * then spends less time interpreted, for some more compiling on V8's background threads:
 * 5,000 rows, 6 alternating runs, 2.21 -> 2.08 s of CPU (8,000: 2.11 s). Node 22 and 24
 * count invocations instead and have no such flag; there, fewer invocations before
 * optimising (--invocation-count-for-turbofan 3,000 -> 700 or 1,500) cost more CPU
 * (1.66 -> 1.94 s), so their defaults stay. False when nothing was set.
 */
export function optimiseSooner(v8Version = process.versions.v8): boolean {
  if (Number(v8Version.split('.')[0]) !== 11) return false;
  return setV8Flags(`--interrupt-budget=${BULK_INTERRUPT_BUDGET}`);
}
