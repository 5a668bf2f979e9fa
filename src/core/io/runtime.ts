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
