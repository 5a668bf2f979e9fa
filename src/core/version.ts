/** The CLI's version (kept equal to package.json's by a test). */
export const VERSION = '0.1.0';

/** `vouchers --version` (or `-V`) and nothing else: answered before anything else loads. */
export function asksVersionOnly(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V');
}
