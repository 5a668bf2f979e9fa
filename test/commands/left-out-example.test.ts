/**
 * The note that names the columns a narrow terminal leaves out suggests a --fields that brings
 * them back: the suggestion is copied from the terminal, so it is never wider than a line of
 * it (a terminal would break it inside a field name), and run as shown it prints a table.
 */
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { ANSI } from '../helpers/cli-text.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
  expect((await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], { env })).code).toBe(0);
});

afterAll(async () => {
  await sb.close();
});

describe.each([
  [['products', 'list'], 60],
  [['products', 'list'], 50],
  [['transactions', 'list'], 60],
])('%j at %i columns', (argv, columns) => {
  it('suggests a --fields whose names fit one line of the terminal, and which prints a table when run', async () => {
    const r = await runCli(argv, { env, tty: true, columns });
    expect(r.code, r.stderr).toBe(0);
    const note = r.stderr.replace(ANSI, '');
    expect(note).toContain(`Left out to fit ${columns} columns:`);
    for (const line of note.trimEnd().split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    const example = /--fields ([a-z_]+(?:,[a-z_]+)*)\)/.exec(note);
    expect(example, note).not.toBeNull();
    const names = example![1]!.split(',');
    expect(names.length).toBeGreaterThan(1);
    const again = await runCli([...argv, '--fields', example![1]!], { env, tty: true, columns });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('┌');
    expect(again.stderr).not.toContain('Left out');
  });
});

describe('transactions list', () => {
  it.each([100, 120])(
    'at %i columns suggests the order id, which the table keeps longest of what it leaves out, not the transaction id',
    async (columns) => {
      const r = await runCli(['transactions', 'list'], { env, tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const note = r.stderr.replace(ANSI, '').replace(/\s+/g, ' ');
      expect(note).toContain(`Left out to fit ${columns} columns: transaction_id, order_id, payout_id`);
      const example = /--fields ([a-z_]+(?:,[a-z_]+)*)\)/.exec(note);
      expect(example, note).not.toBeNull();
      expect(example![1]!.split(','), note).toEqual(expect.arrayContaining(['created_at', 'order_id', 'payout_id']));
      expect(example![1]!.split(','), note).not.toContain('transaction_id');
    },
  );
});
