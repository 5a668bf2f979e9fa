import { setFlagsFromString } from 'node:v8';

/** The Node.js version and platform this run is on (for reports such as certify's). */
export function runtimeInfo(): { node: string; platform: string } {
  return { node: process.version, platform: `${process.platform}-${process.arch}` };
}

/**
 * For a long streaming run (a bulk file): keep V8's young generation at its starting size.
 * Under a steady stream of short-lived request objects V8 grows it step by step to its
 * maximum (16 MB a semi-space), which raises peak memory by some 25 MB and buys nothing
 * here: a little more frequent, still cheap, scavenges. V8 reads this flag each time the
 * young generation would grow, so setting it while running takes effect. Measured by
 * `npm run bench -- bulk-memory`.
 */
export function keepYoungGenerationSmall(): void {
  try {
    setFlagsFromString('--semi-space-growth-factor=1');
  } catch {
    // A runtime without the flag: memory use is only less tight.
  }
}
