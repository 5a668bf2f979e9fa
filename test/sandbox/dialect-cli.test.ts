/**
 * `vouchers sandbox start --dialect`: the flag is checked like the others and passed to the
 * detached copy; a started sandbox names its dialect in its summary, the pid file and
 * `sandbox status`; a state file of the other dialect is a usage error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildStartOptions, childArgs } from '../../src/commands/sandbox/start-options.js';
import { UsageError } from '../../src/core/errors/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { startSandboxCommand } from '../helpers/sandbox-command.js';

const start = (configDir: string, args: string[]) => startSandboxCommand(configDir, args);

describe('sandbox start --dialect', () => {
  it('takes decisions or document, in any case, and hands it to the detached copy', () => {
    expect(buildStartOptions({}, '/').dialect).toBeUndefined();
    expect(buildStartOptions({ dialect: 'Document ' }, '/').dialect).toBe('document');
    expect(buildStartOptions({ dialect: 'decisions' }, '/').dialect).toBe('decisions');
    expect(() => buildStartOptions({ dialect: 'openapi' }, '/')).toThrow(UsageError);
    const args = childArgs(buildStartOptions({ dialect: 'document' }, '/'));
    expect(args.slice(args.indexOf('--dialect'), args.indexOf('--dialect') + 2)).toEqual(['--dialect', 'document']);
    expect(childArgs(buildStartOptions({}, '/'))).not.toContain('--dialect');
  });

  it('starts the document dialect and reports it in the summary, the pid file and status', async () => {
    const configDir = tempConfigDir();
    const { io, info } = await start(configDir, ['--dialect', 'document']);
    expect(info.dialect).toBe('document');
    expect(io.stderrText()).toContain('document dialect');
    expect(JSON.parse(readFileSync(join(configDir, 'sandboxes', 'local.pid'), 'utf8')).dialect).toBe('document');
    const status = await runCli(['sandbox', 'status', '--json'], { configDir });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, answering: true, dialect: 'document' });
    const human = await runCli(['sandbox', 'status'], { configDir });
    expect(human.stdout).toContain('dialect\tdocument');
    // The written profile points at it: its categories come back as a bare array.
    const local = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.local;
    const res = await fetch(`${local.base_url}/categories`, { headers: { 'X-API-Key': local.api_key, 'X-API-Secret': local.api_secret } });
    expect(((await res.json()) as { title: string }[]).map((c) => c.title)).toContain('Retail');
  });

  it('refuses a --state file of the other dialect as a usage error, before writing a profile', async () => {
    const configDir = tempConfigDir();
    const state = join(configDir, 'state.json');
    const first = await start(configDir, ['--state', state, '--dialect', 'document']);
    first.io.interrupt();
    expect(await first.done).toBe(0);
    const r = await runCli(['sandbox', 'start', '--port', '0', '--state', state, '--dialect', 'decisions'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds a sandbox of the document dialect');
    expect(r.stderr).toContain('--dialect document');
  });
});
