/**
 * Confirmation before a consequential write: a y/N question on an interactive terminal;
 * `--yes` otherwise. Declining stops the command with nothing done; a script without
 * `--yes` gets a UsageError saying so.
 */
import { CancelledError, UsageError } from '../../core/errors/index.js';
import { noPrompt, type IO } from '../../core/io/io.js';
import { ENV, type ResolvedProfile } from '../../core/config/types.js';

export interface ConfirmOptions {
  /** `--yes` was given. */
  yes: boolean;
  /** The question, or how to make it when it is asked (a question that looks things up). */
  question: string | (() => Promise<string>);
  /** Why confirmation is needed, for the non-interactive error. */
  reason: string;
  /** What declining leaves undone, said with the refusal (default `nothing was done`). */
  undone?: string;
}

/** Pass with --yes; ask on an interactive terminal; refuse otherwise. */
export async function confirmOrStop(io: IO, options: ConfirmOptions): Promise<void> {
  if (options.yes) return;
  const why = io.stderrIsTTY ? noPrompt(io) : 'stderr is not a terminal';
  if (why) {
    throw new UsageError(`${options.reason}; not asking: ${why}`, 'add --yes to confirm non-interactively');
  }
  const { confirm } = await import('../../core/io/prompt.js');
  const question = typeof options.question === 'string' ? options.question : await options.question();
  if (!(await confirm(io, question)))
    throw new CancelledError(`not confirmed: ${options.undone ?? 'nothing was done'}`, 'run it again and answer y, or pass --yes');
}

/** Why a profile counts as production, for messages: saved so, or VOUCHERS_PRODUCTION. */
export function productionReason(profile: Pick<ResolvedProfile, 'name' | 'sources'>): string {
  return profile.sources.production === 'env'
    ? `${ENV.production} marks profile ${profile.name} production`
    : `profile ${profile.name} is marked production`;
}

/**
 * The one wording of every confirmation on a production profile:
 * `Profile NAME is PRODUCTION: ACTION for real?`.
 */
export function productionQuestion(profileName: string, action: string): string {
  return `Profile ${profileName} is PRODUCTION: ${action} for real?`;
}
