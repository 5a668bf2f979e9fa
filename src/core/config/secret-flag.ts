/**
 * A secret typed as a flag value is kept in the shell's history and shown to every user of
 * the machine by `ps`: every command that accepts one says so, in the same words.
 */
import { err, type IO } from '../io/io.js';

export function warnPlainSecret(io: IO, flag: string, better: string): void {
  err(
    io,
    `Warning: a secret given as ${flag} is kept in your shell history and visible to other users in the process list (ps); prefer ${better}\n`,
  );
}

/** The better places for a webhook signing secret than `--secret`. */
export const WEBHOOK_SECRET_BETTER = "VOUCHERS_WEBHOOK_SECRET or the profile's webhook_secret (vouchers profiles set, with --stdin)";
