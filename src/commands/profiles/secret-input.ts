/**
 * Where a secret comes from, in order: a plain flag (works, but warns), stdin (or a hidden
 * prompt when stdin is a terminal), an environment variable, a hidden prompt on a TTY.
 */
import { UsageError } from '../../core/errors/index.js';
import { warnPlainSecret } from '../../core/config/secret-flag.js';
import { err, noPrompt, type IO } from '../../core/io/io.js';

export interface SecretSources {
  /** Value of the plain flag, e.g. `--api-secret S`. */
  plain?: string;
  /** `--…-stdin` was given. */
  fromStdin?: boolean;
  /** Flag names for messages. */
  plainFlag: string;
  stdinFlag: string;
  /** Environment variable that may hold it. */
  envName?: string;
  /** Prompt label. */
  label: string;
  /** Ask on a TTY when no other source gave it; otherwise fail with a UsageError. */
  required: boolean;
  /** The warning about a plain secret flag was given already (before any other check could fail). */
  warned?: boolean;
}

/** A label inside a sentence: "API secret" stays, "Webhook secret" becomes "webhook secret". */
export function inSentence(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

export { warnPlainSecret };

export async function obtainSecret(io: IO, s: SecretSources): Promise<string | undefined> {
  if (s.plain !== undefined && s.fromStdin) {
    throw new UsageError(`${s.plainFlag} and ${s.stdinFlag} contradict each other`, `use ${s.stdinFlag} alone`);
  }
  const better = s.envName ? `${s.stdinFlag} or ${s.envName}` : s.stdinFlag;
  if (s.plain !== undefined) {
    if (!s.warned) warnPlainSecret(io, s.plainFlag, better);
    if (s.plain.trim() === '') throw new UsageError(`${s.plainFlag} must not be empty`);
    return s.plain;
  }
  if (s.fromStdin) {
    const { readStdinSecret } = await import('../../core/io/prompt.js');
    return readStdinSecret(io, s.label);
  }
  const fromEnv = s.envName ? io.env[s.envName] : undefined;
  if (fromEnv) {
    err(io, `Using the ${inSentence(s.label)} from ${s.envName}.\n`);
    return fromEnv;
  }
  if (!s.required) return undefined;
  const why = noPrompt(io);
  if (why) {
    throw new UsageError(
      `no ${inSentence(s.label)} given, and nothing is asked here: ${why}`,
      `pipe it in with ${s.stdinFlag} (printf %s "$SECRET" | vouchers …)${s.envName ? ` or set ${s.envName}` : ''}`,
    );
  }
  const { promptSecret } = await import('../../core/io/prompt.js');
  const value = await promptSecret(io, s.label);
  if (value === '') {
    // An empty line or Ctrl-D at the hidden prompt, where nothing typed shows.
    throw new UsageError(
      `no ${inSentence(s.label)} given at the prompt: nothing was saved`,
      `type it at the prompt (nothing is shown as you type), or pipe it in with ${s.stdinFlag}`,
    );
  }
  return value;
}
