import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandArguments, commandTree, renderCommandReference } from '../../src/commands/reference.js';
import { COMMAND_ARGUMENTS, COMMAND_TREE } from '../../src/core/io/command-names.js';
import { createFactory } from '../../src/factory.js';
import { buildProgram } from '../../src/program.js';
import { testIO } from '../helpers/io.js';

describe('docs/commands.md', () => {
  it('is the current help of every command (run `npm run docs` when this fails)', async () => {
    const io = testIO();
    const { program } = await buildProgram(io, (g) => createFactory(io, g));
    const text = renderCommandReference(program);
    expect(text).toContain('## vouchers orders create');
    expect(text).toContain('Examples:');
    expect(readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8')).toBe(text);
  });
});

describe('src/core/io/command-names.ts', () => {
  it('holds the name of every command, as the note wrapper reads them (run `npm run docs` when this fails)', async () => {
    const io = testIO();
    const { program } = await buildProgram(io, (g) => createFactory(io, g));
    expect(COMMAND_TREE).toEqual(commandTree(program));
    expect(Object.keys(COMMAND_TREE.sandbox?.admin ?? {})).toContain('deliveries');
    expect(COMMAND_ARGUMENTS).toEqual(commandArguments(program));
    expect(COMMAND_ARGUMENTS['profiles set']).toEqual([2, 1]);
  });
});

describe('the root section of docs/commands.md', () => {
  it('is what vouchers --help prints: each noun by its name and summary, not its own usage and long description', async () => {
    const io = testIO();
    const rootOf = (text: string) => text.slice(text.indexOf('## vouchers\n'), text.indexOf('\n- ['));
    const { program: all } = await buildProgram(io, (g) => createFactory(io, g));
    const { program: lazy } = await buildProgram(io, (g) => createFactory(io, g), { argv: ['--help'] });
    const docs = rootOf(renderCommandReference(all));
    expect(docs).toContain('  demo                     Walk through the whole API flow against an embedded sandbox');
    expect(docs).not.toContain('demo [options]');
    expect(docs).toBe(rootOf(renderCommandReference(lazy)));
  });
});

describe('command descriptions', () => {
  it('each begins as a sentence does, with a capital (or [experimental]), as the help lists them side by side', async () => {
    const io = testIO();
    const { program } = await buildProgram(io, (g) => createFactory(io, g));
    const lower: string[] = [];
    const walk = (cmd: (typeof program.commands)[number], path: string) => {
      for (const sub of cmd.commands) {
        const name = `${path} ${sub.name()}`;
        if (!sub.name().startsWith('__') && !/^[A-Z[]/.test(sub.description())) lower.push(`${name}: ${sub.description()}`);
        walk(sub, name);
      }
    };
    walk(program, 'vouchers');
    expect(lower).toEqual([]);
  });
});

describe('docs/certify.md', () => {
  it('lists every check of the checklist, as --list does (run `npm run docs` when this fails)', async () => {
    const [{ CHECKLIST }, { withChecksTable }] = await Promise.all([
      import('../../src/certify/checklist.js'),
      import('../../src/certify/doc-table.js'),
    ]);
    const page = readFileSync(new URL('../../docs/certify.md', import.meta.url), 'utf8');
    expect(page).toBe(withChecksTable(page, CHECKLIST));
    for (const c of CHECKLIST) expect(page).toContain(`\`${c.id}\``);
  });
});
