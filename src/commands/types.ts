import type { Command } from '../core/run/commander.js';
import type { Factory } from '../core/run/factory.js';

/** A verb about to run: its command path, its arguments and flags, and what they were validated into. */
export interface VerbCall {
  /** `orders create`: the words after the program's name. */
  command: string;
  /** The positional arguments, as commander passed them. */
  args: unknown[];
  /** The flags, as commander parsed them (the type the declaration gives them). */
  flags: unknown;
  /** What the verb runs with, where it validates its flags before it needs anything else. */
  parsed?: unknown;
}

/**
 * Runs instead of a verb's implementation when given (gh's `runF`): tests read what a
 * command line parses to, and which usage errors it gets, without starting anything.
 */
export type RunSeam = (call: VerbCall) => void | Promise<void>;

/**
 * A noun's registration: adds its command(s) to the root program. Registration files
 * import only commander and light helpers; each verb's action loads its implementation
 * with `await import()` so `--help` and `--version` stay fast. Each action ends in
 * `runVerb(seam, …)`.
 */
export type RegisterCommand = (program: Command, f: Factory, seam?: RunSeam) => void;

/** A command as far as its path goes. */
interface Named {
  name(): string;
  readonly parent: Named | null;
}

/**
 * The end of a verb's action: hand the parsed arguments and flags to the seam when there
 * is one, else run the verb. Parsing and validating that needs no server happens before.
 */
export async function runVerb(
  seam: RunSeam | undefined,
  command: Named,
  input: Omit<VerbCall, 'command' | 'args'> & { args?: unknown[] },
  run: () => Promise<void>,
): Promise<void> {
  if (!seam) return run();
  const names: string[] = [];
  for (let c: Named | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  await seam({
    command: names.join(' '),
    args: input.args ?? [],
    flags: input.flags,
    ...('parsed' in input ? { parsed: input.parsed } : {}),
  });
}
