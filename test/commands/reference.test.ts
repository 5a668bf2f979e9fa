import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCommandReference } from '../../src/commands/reference.js';
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
