import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT, interruptController } from '../src/main.js';
import { ApiError, CancelledError, CliError, NetworkError, PendingError, UsageError } from '../src/core/errors/index.js';
import { VERSION } from '../src/program.js';
import { runCli } from './helpers/run-cli.js';

describe('the interrupt signal', () => {
  it("carries a bulk run's listeners (32 requests in flight, a few each) without a MaxListenersExceededWarning", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const { signal } = interruptController();
      const listeners = Array.from({ length: 32 * 3 }, () => () => {});
      for (const l of listeners) signal.addEventListener('abort', l);
      await new Promise((resolve) => setImmediate(resolve));
      for (const l of listeners) signal.removeEventListener('abort', l);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});

describe('root command', () => {
  it("--help's Environment list names every VOUCHERS_ variable the README's table documents, and no other", async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const documented = [...readme.matchAll(/^\| `(VOUCHERS_[A-Z_]+)`/gm)].map((m) => m[1]).sort();
    const help = (await runCli(['--help'])).stdout;
    const listed = [...new Set(help.slice(help.indexOf('Environment:')).match(/VOUCHERS_[A-Z_]+/g))].sort();
    expect(listed).toEqual(documented);
  });

  it('prints the version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });

  it('prints help with examples and environment', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: vouchers');
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('VOUCHERS_CONFIG_DIR');
  });

  it('names the words of an option once: its description or, where that does not name them, "choices"', async () => {
    const flat = (s: string) => s.replace(/\s+/g, ' ');
    const start = flat((await runCli(['sandbox', 'start', '--help'])).stdout);
    expect(start).toContain('--signing-path <variant> signature path variant verified: full or relative (default "full")');
    expect(start).toMatch(/--dialect <name> API dialect: decisions \(our guesses\) or document .*else decisions --state/);
    expect(flat((await runCli(['demo', '--help'])).stdout)).not.toContain('choices');
    // An argument too.
    const completion = flat((await runCli(['completion', '--help'])).stdout);
    expect(completion).toContain('shell bash, zsh or fish (default: the one $SHELL names)');
    expect(completion).not.toContain('choices');
    // A description that does not name them keeps commander's list.
    expect(flat((await runCli(['profiles', 'add', '--help'])).stdout)).toContain(
      '--signing-path <variant> path variant in signatures (choices: "full", "relative")',
    );
  });

  it('says a default value as "(default 4242)", a default in words as "(default: a free one)", whichever wrote it', async () => {
    const flat = (s: string) => s.replace(/\s+/g, ' ');
    const listen = flat((await runCli(['listen', '--help'])).stdout);
    // Defaults commander shows (given to .option) and those written in the description read alike.
    expect(listen).toContain('--port <n> port to listen on (0 picks a free one) (default 4242)');
    expect(listen).toContain('--host <addr> address to bind (default "127.0.0.1")');
    expect(listen).not.toMatch(/\(default: "/);
    expect(flat((await runCli(['orders', 'create', '--help'])).stdout)).toContain(
      '--wait-timeout <duration> with --wait: how long to follow it (default 10m)',
    );
    expect(flat((await runCli(['certify', '--help'])).stdout)).toContain('(default: a free one)');
  });

  it('exits 2 on an unknown command or option', async () => {
    const a = await runCli(['no-such-command']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown command/i);
    const b = await runCli(['--no-such-flag']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/unknown option/i);
  });

  it('prints a parse error as the JSON error envelope when --json was asked for', async () => {
    const r = await runCli(['wallets', 'list', '--json', '--bogus']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { name: 'UsageError', code: 'USAGE', message: "unknown option '--bogus'", hint: 'see vouchers wallets list --help' },
      trace_id: null,
    });
  });

  it('an unknown --name=value is shown without its value (a secret typed for the wrong command stays out of logs)', async () => {
    for (const json of [false, true]) {
      const r = await runCli(['orders', 'list', '--secret=whsec_TypedHere0123456789', ...(json ? ['--json'] : [])]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("unknown option '--secret=…'");
      expect(r.stderr).not.toContain('TypedHere');
    }
  });

  it("prints parse errors in the layout of every other error, with a hint naming the command's help", async () => {
    const unknown = await runCli(['wallets', 'list', '--bogus']);
    expect(unknown.stderr).toBe("Error: unknown option '--bogus'\n  hint      see vouchers wallets list --help\n");
    const typo = await runCli(['orders', 'create', '--prodcut', 'x']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("Error: unknown option '--prodcut'\n  hint      did you mean --product? see vouchers orders create --help\n");
    const missing = await runCli(['payouts', 'create', '--amount', '1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^Error: required option '--currency <code>' not specified\n {2}hint {6}see vouchers payouts create --help\n$/,
    );
    const noun = await runCli(['ordrs']);
    expect(noun.stderr).toBe("Error: unknown command 'ordrs'\n  hint      did you mean orders? see vouchers --help\n");
  });

  it("a value outside a flag's or argument's choices is named, with the valid ones and the one likely meant (exit 2)", async () => {
    const far = await runCli(['products', 'list', '--output', 'xml']);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe(
      'Error: --output "xml" is not a valid format\n  hint      valid: table, json, ndjson, csv; see vouchers products list --help\n',
    );
    const near = await runCli(['products', 'list', '-o', 'jsn']);
    expect(near.code).toBe(2);
    expect(near.stderr).toBe(
      'Error: --output "jsn" is not a valid format\n  hint      did you mean json? (valid: table, json, ndjson, csv); see vouchers products list --help\n',
    );
    const shell = await runCli(['completion', 'fsh']);
    expect(shell.code).toBe(2);
    expect(shell.stderr).toBe('Error: "fsh" is not a valid shell\n  hint      valid: bash, zsh, fish; see vouchers completion --help\n');
    const json = await runCli(['profiles', 'add', 'x', '--signing-path', 'ful', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        name: 'UsageError',
        code: 'USAGE',
        message: '--signing-path "ful" is not a valid variant',
        hint: 'did you mean full? (valid: full, relative); see vouchers profiles add --help',
      },
      trace_id: null,
    });
  });

  it('a mistyped noun followed by a verb is corrected whole: the verb as typed, or the one near it', async () => {
    const both = await runCli(['order', 'lst']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe("Error: unknown command 'order'\n  hint      did you mean vouchers orders list? see vouchers --help\n");
    expect((await runCli(['transaction', 'list', '--all'])).stderr).toContain('did you mean vouchers transactions list?');
    // An alias typed is kept; a slip between a name and its alias is the name.
    expect((await runCli(['profile', 'ls'])).stderr).toContain('did you mean vouchers profiles ls?');
    expect((await runCli(['profile', 'lst'])).stderr).toContain('did you mean vouchers profiles list?');
    // No verb near: the noun alone, as commander suggests it.
    expect((await runCli(['order', 'frobnicate'])).stderr).toContain('did you mean orders? see vouchers --help');
    // Options typed before the verb are passed over, and kept after it: a value by its
    // placeholder only (it may be a secret).
    expect((await runCli(['ordr', '--json', 'lst'])).stderr).toContain('did you mean vouchers orders list --json? see');
    expect((await runCli(['ordr', '--limit', '5', '-o', 'csv', 'lst'])).stderr).toContain(
      'did you mean vouchers orders list --limit <n> -o <format>? see',
    );
    const secret = await runCli(['webhok', '--secret', 'whsec_TypedHere0123456789', 'verif']);
    expect(secret.stderr).toContain('did you mean vouchers webhooks verify --secret <whsec>? see');
    expect(secret.stderr).not.toContain('TypedHere');
    // Asking for help with a slip gets the same answer: the command meant, and its help.
    const help = await runCli(['ordrs', '--help']);
    expect(help.code).toBe(2);
    expect(help.stderr).toBe("Error: unknown command 'ordrs'\n  hint      did you mean vouchers orders --help? see vouchers --help\n");
    expect((await runCli(['orders', 'lst', '-h'])).stderr).toContain(
      'did you mean vouchers orders list --help? see vouchers orders --help',
    );
    expect((await runCli(['orders', 'frobnicate', '-h'])).stderr).not.toContain('did you mean');
    const json = await runCli(['prodcts', 'gett', 'x', '--json']);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        name: 'UsageError',
        code: 'USAGE',
        message: "unknown command 'prodcts'",
        hint: 'did you mean vouchers products get? see vouchers --help',
      },
      trace_id: null,
    });
  });

  it('names the command to use for one that other CLIs have (login, config, webhooks list), not a near spelling', async () => {
    for (const word of ['login', 'config', 'configure', 'auth']) {
      const r = await runCli([word]);
      expect(r.code, word).toBe(2);
      expect(r.stderr, word).toBe(
        `Error: unknown command '${word}'\n  hint      credentials are kept in profiles: vouchers profiles add NAME --base-url URL --api-key KEY ` +
          '(it asks for the secret), or vouchers sandbox start writes a local one; see vouchers --help\n',
      );
    }
    const list = await runCli(['webhooks', 'list']);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(
      /^Error: unknown command 'list'\n {2}hint {6}.*vouchers webhooks show prints it; see vouchers webhooks --help\n$/,
    );
    const show = await runCli(['orders', 'show', 'ord_1']);
    expect(show.stderr).toMatch(/hint {6}vouchers orders get ORDER_ID shows an order; see vouchers orders --help\n$/);
    // Asked for help, the same.
    const help = await runCli(['login', '--help']);
    expect(help.code).toBe(2);
    expect(help.stderr).toMatch(/hint {6}credentials are kept in profiles: vouchers profiles add /);
    // As JSON too.
    const json = await runCli(['login', '--json']);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'USAGE', hint: expect.stringMatching(/^credentials are kept in profiles/) },
    });
  });

  it("says so when a root option's value is a command's name (the value forgotten), instead of suggesting another command", async () => {
    const profile = await runCli(['--profile', 'products', 'list']);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toBe(
      "Error: --profile took 'products' as its value, so 'list' was read as the command\n" +
        '  hint      did you mean vouchers --profile <name> products list? see vouchers --help\n',
    );
    // Every root option that takes a value, each named with its own placeholder.
    for (const [flag, placeholder] of [
      ['-p', '<name>'],
      ['--base-url', '<url>'],
      ['--timeout', '<duration>'],
      ['--max-retries', '<n>'],
    ]) {
      const r = await runCli([flag!, 'orders', 'list', '--status', 'PENDING']);
      expect(r.code, flag).toBe(2);
      expect(r.stderr, flag).toContain(`Error: ${flag} took 'orders' as its value, so 'list' was read as the command\n`);
      expect(r.stderr, flag).toContain(`did you mean vouchers ${flag} ${placeholder} orders list …?`);
      expect(r.stderr, flag).not.toContain('listen');
    }
    const jmespath = await runCli(['--jmespath', 'products', 'list']);
    expect(JSON.parse(jmespath.stderr).error).toMatchObject({
      code: 'USAGE',
      message: "--jmespath took 'products' as its value, so 'list' was read as the command",
      hint: 'did you mean vouchers --jmespath <expression> products list? see vouchers --help',
    });
    // Nothing after it: an error, not the help and exit 0.
    const alone = await runCli(['--profile', 'products']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^Error: --profile took 'products' as its value, leaving no command to run\n/);
    // Under a noun, its verb taken the same way.
    const verb = await runCli(['orders', '-p', 'list']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toBe(
      "Error: -p took 'list' as its value, leaving no command to run\n" +
        '  hint      did you mean vouchers orders -p <name> list? see vouchers orders --help\n',
    );
    // A profile named like a command, the command after it: no mistake.
    const named = await runCli(['--profile', 'orders', 'orders', 'list']);
    expect(named.stderr).not.toContain('took');
    expect(named.stderr).toContain('no profile named "orders"');
    // A value given with = was meant: commander's own answer.
    expect((await runCli(['--profile=products', 'list'])).stderr).toMatch(/^Error: unknown command 'list'/);
  });

  it('an unknown option that begins one option of the command names it (--denom for --denomination)', async () => {
    const short = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denom', '25']);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe(
      "Error: unknown option '--denom'\n  hint      did you mean --denomination? see vouchers orders create --help\n",
    );
    // The root's options count too; a prefix of several options names none of them.
    expect((await runCli(['products', 'list', '--prof', 'x'])).stderr).toContain('did you mean --profile?');
    expect((await runCli(['orders', 'create', '--wait-t', '1m'])).stderr).toContain('did you mean --wait-timeout?');
    expect((await runCli(['orders', 'create', '--d', '25'])).stderr).toBe(
      "Error: unknown option '--d'\n  hint      see vouchers orders create --help\n",
    );
  });

  it("a command's option typed before the command's name says where it goes", async () => {
    const group = await runCli(['orders', '--reveal', 'codes', 'ord_1']);
    expect(group.code).toBe(2);
    expect(group.stderr).toBe(
      "Error: unknown option '--reveal'\n  hint      --reveal goes after the command's name: vouchers orders codes --reveal …; see vouchers orders --help\n",
    );
    // The command the line names, among those of the group that take it.
    expect((await runCli(['orders', '-o', 'csv', 'list'])).stderr).toContain("-o goes after the command's name: vouchers orders list -o …");
    // A slip in the command's name: the command nearest it, as `ordr --json lst` says list.
    const slip = await runCli(['orders', '--json', 'lst']);
    expect(slip.code).toBe(2);
    expect(slip.stderr).toContain("--json goes after the command's name: vouchers orders list --json …");
    expect((await runCli(['orders', '--json', 'codez', 'ord_1'])).stderr).toContain(
      "--json goes after the command's name: vouchers orders codes --json …",
    );
    const root = await runCli(['--reveal', 'orders', 'codes', 'ord_1']);
    expect(root.code).toBe(2);
    expect(root.stderr).toContain(
      "hint      a command's own options go after its name (vouchers <command> --reveal …); see vouchers --help",
    );
    // Not an option of any command there, or no command after it: just unknown.
    expect((await runCli(['orders', '--frobnicate', 'list'])).stderr).toBe(
      "Error: unknown option '--frobnicate'\n  hint      see vouchers orders --help\n",
    );
    expect((await runCli(['--frobnicate'])).stderr).toBe("Error: unknown option '--frobnicate'\n  hint      see vouchers --help\n");
  });

  it('an option users reach for that a command does not have names what to use instead', async () => {
    const junit = await runCli(['certify', '--sandbox', '--junit', 'report.xml']);
    expect(junit.code).toBe(2);
    expect(junit.stderr).toBe(
      "Error: unknown option '--junit'\n  hint      use --reporter junit=FILE (or --reporter junit for stdout); see vouchers certify --help\n",
    );
    const inline = await runCli(['certify', '--markdown=report.md', '--json']);
    expect(JSON.parse(inline.stderr).error.hint).toBe(
      'use --reporter markdown=FILE (or --reporter markdown for stdout); see vouchers certify --help',
    );
  });

  it("gh api's -f/-F fields, --input file, --jq filter and -X method given to vouchers api: says how this api takes a body, query and method, and sends nothing", async () => {
    const field = await runCli(['api', 'POST', '/orders', '-f', 'product_id=sbx-instant']);
    expect(field.code).toBe(2);
    expect(field.stderr).toBe(
      `Error: unknown option '-f'\n  hint      the body is given whole here: -d '{"key":"value"}' (or -d @file.json), and query parameters with -q key=value; see vouchers api --help\n`,
    );
    expect((await runCli(['api', '-X', 'POST', '/orders'])).stderr).toContain(
      'hint      the method is the first argument: vouchers api POST /orders -d @order.json;',
    );
    expect((await runCli(['api', 'POST', '/orders', '--input', 'order.json'])).stderr).toContain(
      'hint      a body from a file is given with -d @FILE (or -d - for stdin), sent byte for byte; see vouchers api --help',
    );
    const jq = await runCli(['api', 'GET', '/wallets', '--jq', '.data[].currency']);
    expect(jq.code).toBe(2);
    expect(jq.stderr).toContain(
      "hint      query the JSON with --jmespath (JMESPath, as the AWS CLI's --query), e.g. --jmespath 'data[].currency';",
    );
  });

  it("a root option a command has its own of is listed once in the command's help, as the command's", async () => {
    const help = (await runCli(['certify', '--help'])).stdout;
    expect(help.match(/^ {2}--timeout <duration>/gm)).toHaveLength(1);
    expect(help).toMatch(/--timeout <duration> +longest the whole run may take/);
    // Other commands still list the root's, under Global Options.
    expect((await runCli(['orders', 'list', '--help'])).stdout).toMatch(/Global Options:[\s\S]*--timeout <duration> +per-request timeout/);
  });

  it("sandbox start's help says only --profile chooses its profile, not VOUCHERS_PROFILE", async () => {
    const globals = (await runCli(['sandbox', 'start', '--help'])).stdout.split('Global Options:')[1] ?? '';
    expect(globals).toMatch(
      /--profile <name> +profile the sandbox writes and runs under \(default\s+"local"\); only this flag chooses it, not\s+VOUCHERS_PROFILE/,
    );
    expect(globals).not.toContain('env VOUCHERS_PROFILE');
    // Other commands keep the root's.
    expect((await runCli(['sandbox', 'status', '--help'])).stdout).toMatch(/--profile <name> +profile to use \(env VOUCHERS_PROFILE\)/);
  });

  it('wraps option descriptions to a narrow terminal beside their flags', async () => {
    const r = await runCli(['orders', 'create', '--help'], { tty: true, columns: 60 });
    const options = r.stdout.slice(r.stdout.indexOf('Options:'), r.stdout.indexOf('Global Options:')).split('\n');
    // Each line of the option list fits (a word longer than the column may not), and the
    // description of --dry-run goes on under its first line, aligned with it.
    for (const line of options) if (!/\S{29,}/.test(line)) expect(line.length, line).toBeLessThanOrEqual(60);
    const dry = options.findIndex((l) => l.startsWith('  --dry-run'));
    expect(options[dry + 1]).toMatch(/^ {29}\S/);
    // Piped, help is laid out for 80 columns whatever the terminal.
    const piped = await runCli(['orders', 'create', '--help'], { columns: 60 });
    expect(piped.stdout).toMatch(/^ {2}--dry-run {18}.{40,}$/m);
  });

  it('wraps the notes after the options to a narrow terminal, at spaces', async () => {
    const r = await runCli(['profiles', 'add', '--help'], { tty: true, columns: 60 });
    const note = r.stdout.slice(r.stdout.indexOf('The first profile'), r.stdout.indexOf('Examples:')).trim().split('\n');
    for (const line of note) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(note.join(' ')).toContain('The API secret is asked for with a hidden prompt on a terminal;');
    // An example command too wide goes on over lines ending with a shell continuation, to be copied.
    expect(r.stdout).toMatch(/^ {2}\$ vouchers profiles add sandbox \\\n {6}--base-url \S+ \\\n {6}--api-key pk_test_123$/m);
  });

  it("a group of commands without examples of its own points at its commands' help", async () => {
    for (const noun of ['wallets', 'profiles', 'payouts']) {
      const r = await runCli([noun, '--help']);
      expect(r.stdout.trimEnd().split('\n').pop()).toBe(`Each command has examples: vouchers ${noun} <command> --help`);
    }
    // A group with examples of its own keeps them.
    expect((await runCli(['sandbox', '--help'])).stdout).not.toMatch(/Each command has examples/);
  });

  it("help <noun> <verb> shows that verb's help; help of an unknown command is an error", async () => {
    const verb = await runCli(['help', 'orders', 'create']);
    expect(verb.code).toBe(0);
    expect(verb.stdout).toMatch(/^Usage: vouchers orders create /);
    const noun = await runCli(['help', 'orders']);
    expect(noun.stdout).toMatch(/^Usage: vouchers orders /);
    const none = await runCli(['help', 'nope']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/unknown command 'nope'/);
    const noVerb = await runCli(['help', 'orders', 'bogus']);
    expect(noVerb.code).toBe(2);
    expect(noVerb.stderr).toBe("Error: unknown command 'bogus'\n  hint      see vouchers orders --help\n");
    const afterOptions = await runCli(['--profile', 'x', 'help', 'orders', 'create']);
    expect(afterOptions.code).toBe(0);
    expect(afterOptions.stdout).toMatch(/^Usage: vouchers orders create /);
    expect((await runCli(['help'])).stdout).toMatch(/^Usage: vouchers /);
  });

  it('--help or -h on a command that does not exist is an error (exit 2), not the parent help with exit 0', async () => {
    const root = await runCli(['init', '--help']);
    expect(root.code).toBe(2);
    expect(root.stdout).toBe('');
    expect(root.stderr).toMatch(/^Error: unknown command 'init'\n/);
    const verb = await runCli(['orders', 'frobnicate', '-h']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toBe("Error: unknown command 'frobnicate'\n  hint      see vouchers orders --help\n");
    // Real commands, and a command's own arguments before --help, still show help.
    for (const argv of [
      ['orders', '--help'],
      ['--profile', 'x', 'orders', 'list', '-h'],
      ['api', 'GET', '/wallets', '--help'],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: vouchers /);
    }
  });

  it('--no-color turns colour off everywhere, as NO_COLOR does', async () => {
    // No credentials anywhere: a configuration error, drawn by the CLI's own error renderer.
    const coloured = await runCli(['categories', 'list'], { tty: true });
    expect(coloured.code).toBe(2);
    expect(coloured.stderr).toMatch(/\u001b\[/);
    const plain = await runCli(['--no-color', 'categories', 'list'], { tty: true });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/Error:/);
    expect(plain.stderr).not.toMatch(/\u001b\[/);
  });

  it('gives every command a help text with at least one example', async () => {
    const { buildProgram } = await import('../src/program.js');
    const { testIO } = await import('./helpers/io.js');
    const { createFactory } = await import('../src/factory.js');
    const io = testIO();
    const { program } = await buildProgram(io, (g) => createFactory(io, g));
    const leaves: string[][] = [];
    const walk = (cmd: typeof program, path: string[]) => {
      for (const sub of cmd.commands) {
        if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
        const name = [...path, sub.name()];
        if (sub.commands.length > 0) walk(sub, name);
        else leaves.push(name);
      }
    };
    walk(program, []);
    const missing: string[] = [];
    const noGlobals: string[] = [];
    for (const name of leaves) {
      const r = await runCli([...name, '--help']);
      if (r.code !== 0 || !/Examples?:/.test(r.stdout)) missing.push(name.join(' '));
      // The root's options a subcommand inherits are listed in its help, as gh's INHERITED FLAGS.
      const [own = '', globals = ''] = r.stdout.split('Global Options:');
      // One the command has its own of (certify's --timeout, profiles add's --base-url) is listed once, as its own.
      const listed = (o: string) => globals.includes(o) || new RegExp(`^ +${o} `, 'm').test(own);
      if (!['--profile', '--base-url', '--timeout', '--debug'].every(listed)) noGlobals.push(name.join(' '));
    }
    expect(missing).toEqual([]);
    expect(noGlobals).toEqual([]);
  });
});

describe('exit codes are decided from error kinds', () => {
  it('maps each kind', () => {
    expect(exitCodeFor(new UsageError('x'))).toBe(2);
    expect(exitCodeFor(new ApiError({ status: 401, name: 'AuthenticationFailed', code: 'AUTHENTICATION_FAILED', message: 'x' }))).toBe(3);
    expect(exitCodeFor(new ApiError({ status: 403, name: 'IpNotAllowed', code: 'IP_NOT_ALLOWED', message: 'x' }))).toBe(3);
    expect(exitCodeFor(new ApiError({ status: 404, name: 'NotFound', code: 'NOT_FOUND', message: 'x' }))).toBe(4);
    expect(exitCodeFor(new ApiError({ status: 402, name: 'InsufficientFunds', code: 'INSUFFICIENT_FUNDS', message: 'x' }))).toBe(5);
    expect(exitCodeFor(new ApiError({ status: 429, name: 'RateLimitExceeded', code: 'RATE_LIMIT_EXCEEDED', message: 'x' }))).toBe(6);
    expect(exitCodeFor(new ApiError({ status: 503, name: 'ServiceUnavailable', code: 'SERVICE_UNAVAILABLE', message: 'x' }))).toBe(7);
    expect(exitCodeFor(new NetworkError('refused'))).toBe(7);
    expect(exitCodeFor(new PendingError('still pending'))).toBe(8);
    expect(exitCodeFor(new CliError('certification', 'failed'))).toBe(9);
    expect(exitCodeFor(new CliError('interrupted', 'stop'))).toBe(130);
    expect(exitCodeFor(new CancelledError('not confirmed: nothing was done'))).toBe(10);
    expect(exitCodeFor(new Error('boom'))).toBe(1);
    expect(EXIT.ok).toBe(0);
  });
});

describe('version', () => {
  it('matches package.json', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
