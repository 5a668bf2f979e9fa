import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConfig } from '../../src/core/config/store.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

/** Run the generated bash function for a command line; `vouchers` is stubbed for dynamic values. */
function bashComplete(script: string, line: string[], stub = ''): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-completion-'));
  const file = join(dir, 'vouchers.bash');
  writeFileSync(file, script);
  const words = line.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const program = `
vouchers() { ${stub || ':'}; }
source "${file}"
COMP_WORDS=(${words})
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
___vouchers_complete
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  const output = execFileSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8', cwd: dir });
  return output.split('\n').filter(Boolean);
}

describe('vouchers completion', () => {
  it('prints a bash script generated from the command tree', async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const noun of ['categories', 'products', 'wallets', 'transactions', 'payouts', 'reconciliation', 'webhooks', 'completion']) {
      expect(r.stdout).toContain(noun);
    }
    expect(r.stdout).toContain('complete -o default -F ___vouchers_complete vouchers');
    expect(r.stdout).not.toContain('__complete profiles products'); // the hidden command is not offered as a subcommand
    // Valid bash.
    execFileSync('bash', ['-n'], { input: r.stdout });
  });

  it('completes nouns, verbs, flags and choices in bash', async () => {
    const { stdout: script } = await runCli(['completion', 'bash']);
    expect(bashComplete(script, ['vouchers', 'tra'])).toEqual(['transactions']);
    expect(bashComplete(script, ['vouchers', 'products', ''])).toEqual(expect.arrayContaining(['list', 'get']));
    expect(bashComplete(script, ['vouchers', 'products', 'list', '--cu'])).toEqual(['--currency']);
    expect(bashComplete(script, ['vouchers', 'transactions', 'list', '--type', 'RE'])).toEqual(['REFUND']);
    expect(bashComplete(script, ['vouchers', 'orders', 'list', '--status', 'PART'])).toEqual(['PARTIALLY_DELIVERED']);
    expect(bashComplete(script, ['vouchers', 'orders', 'wait', '--until', 'DEL'])).toEqual(['DELIVERED']);
    // Global flags are offered after a subcommand too.
    expect(bashComplete(script, ['vouchers', 'wallets', 'list', '--prof'])).toEqual(['--profile']);
    // A flag value is skipped when finding the command path.
    expect(bashComplete(script, ['vouchers', '--profile', 'prod', 'pay'])).toEqual(['payouts']);
  });

  it('offers the event types of sandbox trigger and the HTTP methods of api and sign, in bash, zsh and fish', async () => {
    const { stdout: script } = await runCli(['completion', 'bash']);
    expect(bashComplete(script, ['vouchers', 'sandbox', 'trigger', ''])).toEqual([
      'order.created',
      'order.processing',
      'order.delivered',
      'order.partially_delivered',
      'order.cancelled',
      'order.refunded',
      'voucher.issued',
    ]);
    expect(bashComplete(script, ['vouchers', 'sandbox', 'trigger', 'order.p'])).toEqual(['order.processing', 'order.partially_delivered']);
    expect(bashComplete(script, ['vouchers', 'api', ''])).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
    expect(bashComplete(script, ['vouchers', 'sign', 'P'])).toEqual(['POST', 'PUT', 'PATCH']);
    // Only the first argument: the path after the method is typed.
    expect(bashComplete(script, ['vouchers', 'api', 'GET', ''])).toEqual([]);
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.stdout).toContain("'sandbox trigger') echo 'choices:order.created order.processing");
    expect(zsh.stdout).toContain("'api') echo 'choices:GET POST PUT PATCH DELETE HEAD'");
    const fish = await runCli(['completion', 'fish']);
    expect(fish.stdout).toContain("'sign'");
    expect(fish.stdout).toContain("'choices:GET POST PUT PATCH DELETE HEAD'");
    expect(fish.stdout).toContain("'choices:order.created order.processing order.delivered");
  });

  it('offers file names only where a file is asked for, never for an id, an amount or a URL', async () => {
    const { stdout: script } = await runCli(['completion', 'bash']);
    // The folder the completion runs in holds the script: a file name to offer.
    expect(bashComplete(script, ['vouchers', 'orders', 'codes', 'x', '--codes-out', ''])).toEqual(['vouchers.bash']);
    expect(bashComplete(script, ['vouchers', 'orders', 'create', '--from', ''])).toEqual(['vouchers.bash']);
    expect(bashComplete(script, ['vouchers', 'api', 'POST', '/orders', '--data', ''])).toEqual(['vouchers.bash']);
    for (const line of [
      ['vouchers', 'orders', 'get', ''],
      ['vouchers', 'events', 'show', ''],
      ['vouchers', 'orders', 'create', '--denomination', ''],
      ['vouchers', 'orders', 'create', '--reference', ''],
      ['vouchers', 'listen', '--forward-to', ''],
      ['vouchers', 'log', '--path', ''],
    ])
      expect(bashComplete(script, line), line.join(' ')).toEqual([]);
    // And bash's own file-name completion is switched off for them (complete -o default).
    expect(script).toContain('none) compopt +o default 2>/dev/null; return 0 ;;');
  });

  it('asks `vouchers __complete` for profile names and product ids', async () => {
    const { stdout: script } = await runCli(['completion', 'bash']);
    const stub =
      'if [[ "$*" == *"__complete profiles"* ]]; then printf "local\\nprod\\n"; elif [[ "$*" == "--profile prod __complete products" ]]; then printf "sbx-instant\\nsbx-async\\n"; fi';
    expect(bashComplete(script, ['vouchers', '--profile', 'pr'], stub)).toEqual(['prod']);
    expect(bashComplete(script, ['vouchers', '-p', 'prod', 'products', 'get', 'sbx-a'], stub)).toEqual(['sbx-async']);
    expect(bashComplete(script, ['vouchers', 'profiles', 'use', ''], stub).sort()).toEqual(['local', 'prod']);
    // Only the first argument is a profile: not the one after it (profiles use NAME, profiles set NAME KEY VALUE).
    expect(bashComplete(script, ['vouchers', 'profiles', 'use', 'local', ''], stub)).toEqual([]);
    expect(bashComplete(script, ['vouchers', 'profiles', 'set', 'local', ''], stub)).toEqual([]);
    expect(bashComplete(script, ['vouchers', '-p', 'prod', 'products', 'get', 'sbx-async', ''], stub)).toEqual([]);
    expect(bashComplete(script, ['vouchers', 'completion', 'bash', ''])).toEqual([]);
    expect(bashComplete(script, ['vouchers', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it('prints zsh and fish scripts with the same commands', async () => {
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout.startsWith('#compdef vouchers')).toBe(true);
    expect(zsh.stdout).toContain("'transactions list|--type') echo 'choices:");
    // Words the command checks itself are offered too: the sandbox dialects, the signing path variants.
    expect(zsh.stdout).toContain("'demo|--dialect') echo 'choices:decisions document' ;;");
    expect(zsh.stdout).toContain("'sandbox start|--dialect') echo 'choices:decisions document' ;;");
    expect(zsh.stdout).toContain("'sandbox start|--signing-path') echo 'choices:full relative' ;;");
    expect(zsh.stdout).toContain('compdef _vouchers vouchers');
    expect(zsh.stdout).not.toMatch(/local [^\n]*\bpath\b/);
    const fish = await runCli(['completion', 'fish']);
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c vouchers -f -a '(__vouchers_candidates)'");
    expect(fish.stdout).toContain("'products list'");
    expect(fish.stdout).toContain('__complete');
  });

  it('without a shell, takes the one $SHELL names, and names the shells it supports when $SHELL is another', async () => {
    const zsh = await runCli(['completion'], { env: { SHELL: '/usr/bin/zsh' } });
    expect(zsh.code, zsh.stderr).toBe(0);
    expect(zsh.stdout).toBe((await runCli(['completion', 'zsh'])).stdout);
    // A shell given wins over $SHELL.
    expect((await runCli(['completion', 'fish'], { env: { SHELL: '/bin/bash' } })).stdout).toContain('# fish completion for vouchers');
    const tcsh = await runCli(['completion'], { env: { SHELL: '/bin/tcsh', NO_COLOR: '1' } });
    expect(tcsh.code).toBe(2);
    expect(tcsh.stdout).toBe('');
    expect(tcsh.stderr).toBe(
      'Error: no shell given, and $SHELL (/bin/tcsh) is not one completion supports\n  hint      name one of bash, zsh, fish: e.g. vouchers completion bash\n',
    );
  });

  it('on a terminal without a shell named, says how to install completion instead of printing the script', async () => {
    const bash = await runCli(['completion'], { tty: true, env: { SHELL: '/bin/bash', NO_COLOR: '1' } });
    expect(bash.code, bash.stderr).toBe(0);
    expect(bash.stderr).toBe('');
    expect(bash.stdout).not.toContain('___vouchers_complete');
    expect(bash.stdout).toContain('Add this line to ~/.bashrc and open a new shell:\n\n  source <(vouchers completion bash)\n');
    expect(bash.stdout).toContain('  vouchers completion bash > ~/.local/share/bash-completion/completions/vouchers\n');
    expect(bash.stdout).toContain('To print the script itself: vouchers completion bash\n');
    expect(bash.stdout).toContain('Other shells: vouchers completion zsh, vouchers completion fish\n');
    expect(bash.stdout).not.toContain('~/.zshrc');
    const fish = await runCli(['completion'], { tty: true, env: { SHELL: '/usr/local/bin/fish' } });
    expect(fish.stdout).toContain(
      'Add this line to ~/.config/fish/config.fish and open a new shell:\n\n  vouchers completion fish | source\n',
    );
    expect(fish.stdout).toContain('  vouchers completion fish > ~/.config/fish/completions/vouchers.fish\n');
    // Every line fits an 80-column terminal.
    for (const line of [...bash.stdout.split('\n'), ...fish.stdout.split('\n')]) expect(line.length, line).toBeLessThanOrEqual(80);
    // A $SHELL completion does not support, or none: the way for each shell it does, not an error.
    const tcsh = await runCli(['completion'], { tty: true, env: { SHELL: '/bin/tcsh' } });
    expect(tcsh.code, tcsh.stderr).toBe(0);
    expect(tcsh.stdout.split('\n')[0]).toBe('Completion is for bash, zsh, fish ($SHELL is /bin/tcsh).');
    for (const line of [
      '  source <(vouchers completion bash)',
      '  source <(vouchers completion zsh)',
      '  vouchers completion fish | source',
    ])
      expect(tcsh.stdout).toContain(`${line}\n`);
    const unset = await runCli(['completion'], { tty: true, env: { SHELL: undefined } });
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stdout.split('\n')[0]).toBe('Completion is for bash, zsh, fish ($SHELL is not set).');
  });

  it('on a narrow terminal, the install words are wrapped at spaces and each command kept whole on a line', async () => {
    for (const SHELL of ['/bin/bash', '/usr/bin/zsh', '/usr/bin/fish', '/bin/tcsh']) {
      const r = await runCli(['completion'], { tty: true, columns: 60, env: { SHELL, NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      for (const line of r.stdout.split('\n')) {
        // A command wider than the terminal is on a line of its own, for the terminal to fold, copied whole.
        if (line.length > 60) expect(line, SHELL).toMatch(/^ {2}vouchers completion \w+ > \S+$/);
      }
    }
    const zsh = await runCli(['completion'], { tty: true, columns: 60, env: { SHELL: '/usr/bin/zsh', NO_COLOR: '1' } });
    expect(zsh.stdout).toContain('To complete vouchers commands, flags, profiles and product\nids in zsh:\n');
    expect(zsh.stdout).toContain('Other shells: vouchers completion bash,\nvouchers completion fish\n');
  });

  it('prints the script on a terminal when the shell is named, and into a pipe or a file as before', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    expect(script).toContain('___vouchers_complete');
    expect((await runCli(['completion', 'bash'], { tty: true })).stdout).toBe(script);
    // stderr on a terminal, stdout not (vouchers completion > file).
    expect((await runCli(['completion'], { tty: true, stdoutTTY: false, env: { SHELL: '/bin/bash' } })).stdout).toBe(script);
  });

  it('rejects an unknown shell with a usage error', async () => {
    const r = await runCli(['completion', 'powershell']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('powershell');
  });

  it('documents installation in --help', async () => {
    const r = await runCli(['completion', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Install:');
    expect(r.stdout).toContain('vouchers completion bash >');
  });

  it('`__complete profiles` lists the profiles of the config file', async () => {
    const configDir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('local', { base_url: 'http://127.0.0.1:1/api/v1', api_key: 'k', api_secret: 's' });
    store.set('prod', { base_url: 'https://api.example.com/api/v1', api_key: 'k2', api_secret: 's2', production: true });
    const r = await runCli(['__complete', 'profiles'], { configDir });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['local', 'prod']);
    expect(r.stderr).toBe('');
  });

  it('`__complete products` is silent without a profile or when the server is unreachable', async () => {
    const none = await runCli(['__complete', 'products']);
    expect(none).toEqual({ code: 0, stdout: '', stderr: '' });
    const down = await runCli(['__complete', 'products'], {
      env: { VOUCHERS_BASE_URL: 'http://127.0.0.1:9/api/v1', VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's' },
    });
    expect(down).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('keeps the hidden command out of --help', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).toContain('completion');
    expect(r.stdout).not.toContain('__complete');
  });
});
