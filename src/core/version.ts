/** The CLI's version (kept equal to package.json's by a test). */
export const VERSION = '0.1.0';

/** `vouchers --version` (or `-V`) and nothing else: answered before anything else loads. */
export function asksVersionOnly(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V');
}

/** The Node.js releases the CLI runs on, as package.json's engines field names them (a test keeps the two equal). */
export const SUPPORTED_NODE = '20 (20.18.1 or newer), 22 (22.11 or newer) or 24';

/**
 * Whether this Node.js is older than the releases the CLI runs on (below 20.18.1, 21, 22
 * below 22.11), where it would fail with a stack trace from inside its bundle. A later one
 * than package.json names is let through.
 */
export function nodeTooOld(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  if (major === 20) return minor < 18 || (minor === 18 && patch < 1);
  if (major === 22) return minor < 11;
  return major < 20 || major === 21;
}
