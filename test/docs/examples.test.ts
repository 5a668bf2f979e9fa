/**
 * Every documented example runs against the sandbox: the `$ vouchers …` lines of every
 * command's --help (read from docs/commands.md, which `npm run docs` generates from the help
 * and a test keeps current) and the `vouchers …` lines in the fenced code blocks of
 * README.md and docs/*.md.
 *
 * Each example runs in-process against a fresh embedded sandbox, with its own config
 * directory (a "local" profile that is current, plus the profiles the examples name) and
 * its own working directory holding the files the examples name. Placeholder ids are
 * replaced by real ones made first (an order in the state the example needs, a drift, a
 * batch, an inbox event), and URLs of "your app" by a loopback server. Shell around the
 * command: `| …` and `> file` are dropped (stdout is captured), `< file` feeds stdin, `a &&
 * b` runs both, and `|| echo "… (exit N)"` means exit N is a documented outcome too.
 *
 * An example "runs" when it exits 0, or the code its line documents. The few that cannot
 * run here are listed in NOT_RUN with the reason.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfig } from '../../src/core/config/store.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { hmac, orderEvent } from '../listener/deliveries.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { fastSandbox, quickClock } from '../helpers/sandbox.js';

const ROOT = new URL('../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, ROOT), 'utf8');

interface Example {
  source: string;
  /** The `vouchers …` command line. */
  line: string;
  /** What the example pipes into it: `$NAME` (printf of a variable) or `clipboard` (pbpaste: a webhook body). */
  piped?: string;
}

/** Help example lines of a shape this test does not know how to run (none, or the list below needs a new case). */
const UNKNOWN_SHAPES: string[] = [];

/** The examples in every command's help, as docs/commands.md shows them (the description column dropped). */
function helpExamples(): Example[] {
  const out: Example[] = [];
  for (const raw of read('docs/commands.md').split('\n')) {
    const m = /^\s*\$ (.*)$/.exec(raw);
    if (!m) continue;
    const text = m[1]!;
    const source = 'docs/commands.md';
    // Two or more spaces then text that is not another command: the description column.
    const bare = (line: string) => line.replace(/ {2,}(?!vouchers )[^ ].*$/, '').trim();
    const printf = /^printf %s "(\$\w+)" \| (vouchers .*)$/.exec(text);
    const paste = /^pbpaste \| (vouchers .*)$/.exec(text);
    const inner = /[$<]\((vouchers [^)]*)\)/.exec(text);
    if (printf) out.push({ source, line: bare(printf[2]!), piped: printf[1]! });
    else if (paste) out.push({ source, line: bare(paste[1]!), piped: 'clipboard' });
    else if (inner) out.push({ source, line: inner[1]! });
    else if (text.startsWith('vouchers ') || /^[A-Z_]+=\S* vouchers /.test(text)) out.push({ source, line: bare(text) });
    else UNKNOWN_SHAPES.push(text);
  }
  return out;
}

/** `vouchers …` lines inside fenced code blocks, their `# comment` dropped. */
function fencedExamples(file: string): Example[] {
  const out: Example[] = [];
  let inBlock = false;
  for (const raw of read(file).split('\n')) {
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock) continue;
    const m = /^\s*(?:\$ )?((?:[A-Z_]+=\S+ )*(?:npx )?vouchers .*)$/.exec(raw);
    if (m) out.push({ source: file, line: m[1]!.replace(/\s+#\s.*$/, '').trim() });
  }
  return out;
}

const DOC_FILES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md') && f !== 'commands.md')
    .map((f) => `docs/${f}`),
];

const ALL: Example[] = [...helpExamples(), ...DOC_FILES.flatMap(fencedExamples)];

/** Examples that cannot run here as written, each with the reason (matched on the whole line). */
const NOT_RUN: Record<string, string> = {
  'vouchers sandbox start':
    'runs in the foreground until Ctrl-C, on the fixed port 4010 (test/commands/sandbox-start.test.ts starts it on a free port)',
  'vouchers sandbox start --port 0 --seed 7 --json': 'runs in the foreground until Ctrl-C (test/commands/sandbox-start.test.ts)',
  'vouchers sandbox start --port 4011 --dialect document': 'runs in the foreground until Ctrl-C, on a fixed port',
  'vouchers sandbox start --state sandbox.json --enable-planned': 'runs in the foreground until Ctrl-C, on the fixed port 4010',
  'vouchers sandbox start --detach --time-scale 0.1':
    'leaves a background process on the fixed port 4010 (test/commands/sandbox-detach.test.ts)',
  'vouchers sandbox start --detach && vouchers orders create --product sbx-instant --denomination 25':
    'leaves a background process on the fixed port 4010 (test/commands/sandbox-detach.test.ts)',
  'vouchers sandbox start --detach': 'leaves a background process on the fixed port 4010 (test/commands/sandbox-detach.test.ts)',
  'vouchers sandbox start --detach --profile pacing --time-scale 0.1':
    'leaves a background process on the first port from 4010 no other sandbox has (test/commands/sandbox-detach.test.ts)',
  'vouchers --profile pacing orders create --product sbx-async --denomination 10':
    'needs the sandbox of the profile "pacing", which this test does not leave running',
  'vouchers sandbox stop --profile pacing': 'stops the sandbox of the profile "pacing", which this test does not leave running',
  'vouchers sandbox start [--profile local] [--port 4010] [--host 127.0.0.1] [--seed N] [--time-scale X]': 'a synopsis, not a command line',
  'vouchers sandbox stop':
    'stops a `sandbox start --detach`, which this test does not leave running (the `|| echo` example of no sandbox runs)',
  'vouchers listen --register': 'runs in the foreground until Ctrl-C, on the fixed port 4242 (test/commands/listen*.test.ts)',
  'vouchers listen --forward-to http://localhost:3000/webhooks': 'runs in the foreground until Ctrl-C, on the fixed port 4242',
  'vouchers listen --register --forward-to http://localhost:3000/webhooks': 'runs in the foreground until Ctrl-C, on the fixed port 4242',
  'vouchers listen --port 8080 --secret whsec_... --inbox ./events.ndjson': 'runs in the foreground until Ctrl-C, on a fixed port',
  "vouchers listen --register --events 'order.*' --json": 'runs in the foreground until Ctrl-C, on the fixed port 4242',
  'vouchers certify --profile acme-sandbox --public-url https://abc.tunnel.example --listen-port 8787':
    'needs a public tunnel to this machine (the provider delivers webhooks through it)',
  'vouchers certify --profile acme-sandbox --listen-port 8787 --public-url https://abc123.ngrok.app':
    'needs a public tunnel to this machine (the provider delivers webhooks through it)',
  'VOUCHERS_WEBHOOK_SECRET=whsec_… vouchers certify --profile acme-sandbox --webhook-target https://hooks.acme.test/vouchers':
    'certifies your own receiver, on the internet',
  'VOUCHERS_WEBHOOK_SECRET=whsec_… vouchers certify --sandbox --webhook-target http://127.0.0.1:3000/webhooks':
    'certifies your own receiver, running on port 3000 with its secret',
};

/** Examples whose documented outcome is not exit 0, with the reason. */
const EXIT: Record<string, { code: number; why: string }> = {
  'vouchers webhooks verify --body body.json --signature "t=1732270000,v1=5f0c…"': {
    code: 5,
    why: 'the signature is elided, so it is rejected: exit 5, as the help says',
  },
  'vouchers webhooks verify --body body.json -H "webhook-id: msg_1" -H "webhook-timestamp: 1732270000" -H "webhook-signature: v1,K5oZ…"': {
    code: 5,
    why: 'the signature is elided, so it is rejected: exit 5, as the help says',
  },
  // The examples' log holds no request with the quoted trace ID: not found, as the help says.
  'vouchers log --trace 4bf92f35': { code: 4, why: 'no logged request has this trace ID: said on stderr, exit 4' },
  'vouchers log 4bf92f35': { code: 4, why: 'no logged request has this trace ID: said on stderr, exit 4' },
};

// --- running one example -------------------------------------------------------------------

const WEBHOOK_SECRET = 'whsec_examples_test_secret_0123456789';
const EVENT_JSON = JSON.stringify(orderEvent(1));
/** The shell variables examples print into a command. */
const VARS: Record<string, string> = { API_SECRET: 'sk_test_examples', WHSEC: WEBHOOK_SECRET };
const ORDER_JSON = '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}]}';

interface Step {
  argv: string[];
  stdinFile?: string;
  env: Record<string, string>;
}
interface Plan {
  steps: Step[];
  expectCode?: number | undefined;
}

/** Split an example the way sh would for these lines: quoting, `<`, `>`, `|`, `&&`, `||`. */
function plan(line: string): Plan {
  const tokens = [...line.matchAll(/'([^']*)'|"([^"]*)"|(\|\||&&|[|<>]|[^\s'"|<>&]+(?:"[^"]*")?)/g)].map((m) => ({
    text: m[1] ?? m[2] ?? m[3]!,
    op: m[3] !== undefined && /^(\|\||&&|[|<>])$/.test(m[3]),
  }));
  const steps: Step[] = [];
  let cur: Step = { argv: [], env: {} };
  let result: Plan = { steps };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.op && t.text === '&&') {
      steps.push(cur);
      cur = { argv: [], env: {} };
      continue;
    }
    if (t.op && t.text === '||') {
      // `|| echo "… (exit N)"`: the documented outcome is that exit code (any failure when none is named).
      const rest = tokens
        .slice(i + 1)
        .map((x) => x.text)
        .join(' ');
      const code = /\(exit (\d+)\)/.exec(rest);
      result = { steps, expectCode: code ? Number(code[1]) : undefined };
      break;
    }
    if (t.op && t.text === '|') break; // the pipe's reader: stdout is captured instead
    if (t.op && t.text === '>') {
      i++;
      continue;
    }
    if (t.op && t.text === '<') {
      cur.stdinFile = tokens[++i]!.text;
      continue;
    }
    if (cur.argv.length === 0 && !t.op && /^[A-Z_]+=/.test(t.text)) {
      const eq = t.text.indexOf('=');
      cur.env[t.text.slice(0, eq)] = t.text.slice(eq + 1);
      continue;
    }
    cur.argv.push(t.text);
  }
  steps.push(cur);
  for (const s of steps) {
    if (s.argv[0] === 'npx') s.argv.shift();
    expect(s.argv[0], line).toBe('vouchers');
    s.argv.shift();
  }
  return result;
}

// A loopback server standing in for "your app" (forward targets).
let app: Server;
let appUrl: string;
beforeAll(async () => {
  app = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  await new Promise((r) => app.close(r));
});

interface World {
  sb: SandboxHandle;
  configDir: string;
  cwd: string;
  run: (argv: string[], opts?: { stdin?: string; tty?: boolean }) => ReturnType<typeof runCli>;
}

async function world(line: string): Promise<World> {
  // Reconciliation is a planned endpoint; operator actions on an open order need it to stay open a while.
  const sb = /reconciliation/.test(line)
    ? await fastSandbox({ enablePlanned: true })
    : /admin (complete|fail|partial)/.test(line)
      ? // Ten times slower than real time: an approved order stays open 20–40 s, so the
        // operator's action finds it open however slowly a loaded machine runs the commands
        // before it (at real time it was delivered after 2–4 s, and the example failed).
        await fastSandbox({ timeScale: 10 })
      : await fastSandbox();
  const configDir = tempConfigDir();
  const cwd = tempConfigDir();
  const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
  const local = {
    base_url: sb.baseUrl,
    api_key: sb.apiKey,
    api_secret: sb.apiSecret,
    admin_url: sb.adminUrl,
    admin_token: sb.adminToken,
    webhook_secret: WEBHOOK_SECRET,
  };
  const adding = /profiles add (\S+)/.exec(line)?.[1];
  for (const name of ['local', 'prod', 'acme-sandbox', 'old-sandbox']) if (name !== adding) store.set(name, local);
  store.setCurrent('local');
  writeFileSync(join(cwd, 'order.json'), ORDER_JSON);
  writeFileSync(join(cwd, 'payout.json'), '{"currency":"USD","amount":1}');
  writeFileSync(join(cwd, 'event.json'), EVENT_JSON);
  writeFileSync(join(cwd, 'body.json'), EVENT_JSON);
  const t = Math.floor(Date.now() / 1000);
  const head = [
    'POST /webhooks HTTP/1.1',
    'Content-Type: application/json',
    `X-Webhook-Signature: t=${t},v1=${hmac(WEBHOOK_SECRET, t, EVENT_JSON)}`,
  ];
  writeFileSync(join(cwd, 'delivery.http'), `${head.join('\r\n')}\r\n\r\n${EVENT_JSON}`);
  writeFileSync(join(cwd, 'orders.csv'), 'product_id,denomination,quantity,reference\nsbx-instant,10,1,row-1\nsbx-instant,25,2,row-2\n');
  const run: World['run'] = (argv, opts = {}) =>
    runCli(argv, { configDir, cwd, env: { NO_COLOR: '1' }, stdin: opts.stdin, tty: opts.tty, stdinTTY: opts.tty });
  return { sb, configDir, cwd, run };
}

async function createOrder(w: World, product: string, quantity = 1): Promise<string> {
  const r = await w.run(['orders', 'create', '--product', product, '--denomination', '25', '--quantity', String(quantity), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { order_id: string }).order_id;
}

const PLACEHOLDER_ORDER = /\bord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/;

/** The real values the example's placeholders stand for, made in its sandbox. */
async function substitute(w: World, line: string): Promise<string> {
  let out = line.replace(/https?:\/\/localhost:3000\/webhooks/g, appUrl);
  // "$SIG": the signature header of the piped body, made with the secret the example names.
  const secret = /--secret (\S+)/.exec(out)?.[1];
  if (out.includes('"$SIG"') && secret) {
    const t = Math.floor(Date.now() / 1000);
    out = out.replace('"$SIG"', `"t=${t},v1=${hmac(secret, t, EVENT_JSON)}"`);
  }
  if (PLACEHOLDER_ORDER.test(out)) {
    // The order in the state the command needs.
    const product = /admin (approve|reject)|orders cancel/.test(out)
      ? 'sbx-gated'
      : /admin (complete|fail|partial)|orders wait/.test(out)
        ? 'sbx-gated'
        : 'sbx-instant';
    const id = await createOrder(w, product, /admin partial/.test(out) ? 4 : 1);
    if (/admin (complete|fail|partial)|orders wait/.test(out)) {
      // Released from the gate, it is asynchronous (PENDING/PROCESSING) until completed.
      const a = await w.run(['sandbox', 'admin', 'approve', id]);
      expect(a.code, a.stderr).toBe(0);
    }
    out = out.replace(PLACEHOLDER_ORDER, id);
  }
  if (/\bdrf_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/.test(out)) {
    const id = await createOrder(w, 'sbx-instant');
    const d = await w.run(['sandbox', 'admin', 'drifts', 'create', '--order', id, '--json']);
    expect(d.code, d.stderr).toBe(0);
    out = out.replace(/\bdrf_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/, /drf_[0-9A-Za-z]+/.exec(d.stdout)![0]);
  }
  if (/\bevt_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/.test(out)) {
    // A sandbox event (and, for a redelivery, an endpoint to deliver it to).
    await w.run(['webhooks', 'register', '--url', appUrl]);
    const id = await createOrder(w, 'sbx-instant');
    const e = await w.run(['sandbox', 'admin', 'events', 'list', '--order', id, '--json']);
    expect(e.code, e.stderr).toBe(0);
    out = out.replace(/\bevt_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/, /evt_[0-9A-Za-z]+/.exec(e.stdout)![0]);
  }
  if (/\bevt_01JDQ5P2M4R8T0V2X4Z6B8D0F2\b/.test(out) || /vouchers events /.test(out)) {
    // The local inbox `vouchers listen` writes.
    const id = /\bevt_01JDQ5P2M4R8T0V2X4Z6B8D0F2\b/.exec(out)?.[0] ?? 'evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2';
    const orderId = /\bord_\w+/.exec(out)?.[0] ?? 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE';
    const envelope = {
      ...orderEvent(1),
      event_id: id,
      created_at: new Date().toISOString(),
      data: { ...(orderEvent(1).data as object), order_id: orderId },
    };
    const entry = {
      received_at: new Date().toISOString(),
      envelope,
      meta: { signature_timestamp: Math.floor(Date.now() / 1000), webhook_id: id, remote_address: '127.0.0.1' },
    };
    writeFileSync(join(w.configDir, 'events.ndjson'), JSON.stringify(entry) + '\n', { mode: 0o600 });
  }
  // An endpoint to show, delete, or rotate the secret of (register without --url keeps its URL).
  if (/vouchers webhooks (show|delete)|vouchers webhooks register (?!.*--url)/.test(out)) {
    const r = await w.run(['webhooks', 'register', '--url', appUrl]);
    expect(r.code, r.stderr).toBe(0);
  }
  if (/--partner ptn_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/.test(out)) {
    const r = await w.run(['sandbox', 'admin', 'partners', 'create', '--name', 'Second shop', '--wallet', 'EUR=1000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    out = out.replace(/\bptn_01JDQ5N7ZS3QK6V9W2X4Y8B1CE\b/, /ptn_[0-9A-Za-z]+/.exec(r.stdout)![0]);
  }
  if (/\bvk_test_1d6dd8ca20bce67ee1a88725\b/.test(out)) out = out.replace(/\bvk_test_1d6dd8ca20bce67ee1a88725\b/g, w.sb.apiKey);
  if (/\bbat_3f9a0c1d2e4b5a6c7d8e\b/.test(out)) {
    const b = await w.run(['orders', 'create', '--from', 'orders.csv']);
    expect(b.code, b.stderr).toBe(0);
    out = out.replace(/\bbat_3f9a0c1d2e4b5a6c7d8e\b/, /bat_[0-9a-f]+/.exec(b.stdout + b.stderr)![0]);
  }
  return out;
}

const RUNNABLE = ALL.filter((e) => NOT_RUN[e.line] === undefined);

/**
 * An example's time limit. Up to 16 run at once (maxConcurrency), each with its own sandbox:
 * a whole certification takes 15-17 s of real time among them on 2 idle CPUs (1.9 s alone),
 * and over 20 s, the suite's limit, on a busy machine.
 */
const EXAMPLE_TIMEOUT_MS = 60_000;

describe('documented examples run against the sandbox', () => {
  it("finds the examples of README, docs and every command's help", () => {
    expect(helpExamples().length).toBeGreaterThan(100);
    expect(UNKNOWN_SHAPES, 'help examples this test cannot run: teach it their shape').toEqual([]);
    expect(fencedExamples('README.md').length).toBeGreaterThan(5);
    // Every example kept out is still documented (no stale entries).
    for (const line of Object.keys(NOT_RUN))
      expect(
        ALL.map((e) => e.line),
        line,
      ).toContain(line);
  });

  const seen = new Set<string>();
  for (const ex of RUNNABLE) {
    const pipe = ex.piped === undefined ? '' : ex.piped === 'clipboard' ? 'pbpaste | ' : `printf %s "${ex.piped}" | `;
    if (seen.has(pipe + ex.line)) continue;
    seen.add(pipe + ex.line);
    it.concurrent(
      `${ex.source}: ${pipe}${ex.line}`,
      async () => {
        const w = await world(ex.line);
        try {
          const line = await substitute(w, ex.line);
          const p = plan(line);
          let code = 0;
          let last = { code: 0, stdout: '', stderr: '' };
          for (const step of p.steps) {
            const piped =
              step === p.steps[0] && ex.piped !== undefined ? (ex.piped === 'clipboard' ? EVENT_JSON : VARS[ex.piped.slice(1)]) : undefined;
            const stdin = step.stdinFile === undefined ? piped : readFileSync(join(w.cwd, step.stdinFile), 'utf8');
            // On a terminal, as its example implies (unless something is piped in): a command that
            // asks for confirmation gets "y", and `profiles add` the API secret it asks for.
            const args = step.argv.join(' ');
            const answer =
              stdin !== undefined
                ? undefined
                : /^profiles add /.test(args)
                  ? 'sk_test_examples\n'
                  : !step.argv.includes('--yes') && /\b(cancel|remove|delete|reset)\b/.test(args)
                    ? 'y\n'
                    : undefined;
            const tty = answer !== undefined;
            // A quick clock: the CLI's polls and waits (demo, certify, --wait) move time without waiting it out.
            // Up to 20 ms of real time a sleep: a wait for an order (the demo's 60 s) then lasts 3-6 s of
            // real time, ahead of the sandbox's own timers even with many examples running at once.
            last = await runCli(step.argv, {
              configDir: w.configDir,
              cwd: w.cwd,
              env: { NO_COLOR: '1', ...step.env },
              stdin: answer ?? stdin,
              tty,
              stdinTTY: tty,
              overrides: { clock: quickClock(20) },
            });
            code = last.code;
            if (code !== 0) break;
          }
          const why = `${line}\nexit ${code}\n${last.stderr}`;
          const documented = EXIT[ex.line];
          if (documented) expect(code, `${why}\n(${documented.why})`).toBe(documented.code);
          else if (p.expectCode !== undefined) expect([0, p.expectCode], why).toContain(code);
          else expect(code, why).toBe(0);
          expect(last.stderr, why).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
        } finally {
          await w.sb.close();
        }
      },
      EXAMPLE_TIMEOUT_MS,
    );
  }
});
