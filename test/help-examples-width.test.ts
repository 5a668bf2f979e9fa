/**
 * Every example in every command's help, laid out for a narrow terminal (or piped with
 * COLUMNS set), fits it and can still be copied: its lines joined as a shell joins them
 * (` \` at a line's end) give back the words of the example as written.
 */
import { describe, expect, it } from 'vitest';
import { shellWords } from '../src/core/io/shell-command.js';
import { runCli } from './helpers/run-cli.js';

/** Every command's words: the root, each noun and each verb. */
async function allCommands(): Promise<string[][]> {
  const { buildProgram } = await import('../src/program.js');
  const { testIO } = await import('./helpers/io.js');
  const { createFactory } = await import('../src/factory.js');
  const io = testIO();
  const { program } = await buildProgram(io, (g) => createFactory(io, g));
  const all: string[][] = [[]];
  const walk = (cmd: typeof program, path: string[]) => {
    for (const sub of cmd.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden || sub.name() === 'help') continue;
      all.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return all;
}

/** The example commands of a help text, each as the lines it is printed on. */
function examples(help: string): string[][] {
  const lines = help.split('\n');
  const out: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\$ /.test(lines[i]!)) continue;
    const example = [lines[i]!];
    while (/ \\$/.test(example[example.length - 1]!) && i + 1 < lines.length) example.push(lines[++i]!);
    out.push(example);
  }
  return out;
}

/** The words of an example: its command, without the words beside it. */
const commandWords = (example: string[]) =>
  shellWords(
    example
      .join('\n')
      .replace(/ \\\n */g, ' ')
      .replace(/ {3,}\S.*$/s, '')
      .trim()
      .slice(2),
  ).filter((w, i, all) => !all.slice(0, i + 1).some((x) => x.startsWith('#')));

describe('examples in help on a narrow terminal', () => {
  it('are broken between words with a shell continuation, each line within the width, never inside a quoted argument', async () => {
    const tooWide: string[] = [];
    let broken = 0;
    for (const words of await allCommands()) {
      const wide = examples((await runCli([...words, '--help'], { tty: true, columns: 400 })).stdout);
      for (const narrow of [
        (await runCli([...words, '--help'], { tty: true, columns: 60 })).stdout,
        (await runCli([...words, '--help'], { env: { COLUMNS: '60' } })).stdout,
      ]) {
        const fitted = examples(narrow);
        expect(fitted.length, words.join(' ')).toBe(wide.length);
        fitted.forEach((example, i) => {
          if (example.length > 1) broken++;
          expect(commandWords(example), example.join('\n')).toEqual(commandWords(wide[i]!));
          // A line wider than 60 holds a word (a quoted argument), or a flag with it, that no line can.
          for (const line of example) {
            const alone = shellWords(line.replace(/^\s*\$? */, '').replace(/ \\$/, ''));
            if (line.length > 60 && !(alone.length === 1 || (alone.length === 2 && alone[0]!.startsWith('-')))) tooWide.push(line);
          }
        });
      }
    }
    expect(tooWide).toEqual([]);
    expect(broken).toBeGreaterThan(20);
  });
});
