/**
 * The chalk instances of tables and records. Loading chalk builds its whole style table
 * (about 1 ms and 130 KB of a one-shot command); output to a pipe or a file, which scripts
 * and CI read, is never coloured, so chalk is loaded only when standard output may be
 * (main.ts, before the command runs, as decided by colorEnabled).
 */
import type { ChalkInstance } from 'chalk';

let ChalkClass: typeof import('chalk').Chalk | undefined;

/** Load chalk for coloured output; main.ts does when standard output may be coloured. */
export async function loadColour(): Promise<void> {
  ChalkClass ??= (await import('chalk')).Chalk;
}

/** chalk's style names that take arguments and return a style (`c.hex('#f00')`). */
const MODELS = new Set<string | symbol>(['rgb', 'hex', 'ansi256', 'bgRgb', 'bgHex', 'bgAnsi256']);

/**
 * What chalk does at level 0, without chalk: a style, chained or not, returns its arguments
 * as text (one as it is, several joined by a space), `visible` returns nothing, and the
 * instance itself called joins its arguments.
 */
function style(visible: boolean): ChalkInstance {
  const text = (...args: unknown[]): string => (visible ? (args.length === 1 ? `${args[0] as string}` : args.join(' ')) : '');
  return chainable(text, visible);
}
function chainable(call: (...args: unknown[]) => string, visible: boolean): ChalkInstance {
  const self: ChalkInstance = new Proxy(call, {
    get(_, key) {
      if (key === 'level') return 0;
      if (key === 'visible') return visible ? hidden : self;
      if (MODELS.has(key)) return () => (visible ? shown : self);
      return visible ? shown : self;
    },
  }) as unknown as ChalkInstance;
  return self;
}
const shown = style(true);
const hidden = style(false);
const PLAIN = chainable((...args: unknown[]) => args.join(' '), true);

/** A chalk for this output: chalk's own when coloured (and loaded), else the plain one. */
export function chalkAt(colour: boolean): ChalkInstance {
  return colour && ChalkClass ? new ChalkClass({ level: 1 }) : PLAIN;
}
