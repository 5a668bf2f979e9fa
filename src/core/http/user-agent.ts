/** `User-Agent: vouchers/<version>`, the version read once from the package's package.json. */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function userAgent(): string {
  if (cached) return cached;
  let version = '0.0.0';
  try {
    // src/core/http and dist/core/http are both three levels below the package root.
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string') version = pkg.version;
  } catch {
    // A missing package.json leaves the placeholder version; the header stays well-formed.
  }
  cached = `vouchers/${version}`;
  return cached;
}
