/**
 * Every example in the --help of `api` and `sign` runs against the sandbox as written
 * (files it names are made in the working directory, `< file` is fed as stdin), and every
 * product an example orders is one the sandbox has.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfig } from '../../src/core/config/store.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let configDir: string;
let cwd: string;
const ORDER = '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}]}';
const PAYOUT = '{"currency":"USD","amount":1}';

beforeAll(async () => {
  sb = await fastSandbox();
  configDir = tempConfigDir();
  const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
  const creds = { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret };
  store.set('local', creds);
  store.set('prod', creds);
  store.setCurrent('local');
  cwd = tempConfigDir();
  writeFileSync(join(cwd, 'order.json'), ORDER);
  writeFileSync(join(cwd, 'payout.json'), PAYOUT);
});
afterAll(async () => { await sb.close(); });

/** The `$ vouchers …` lines after "Examples:" of a command's help. */
async function examples(command: string): Promise<string[]> {
  const help = await runCli([command, '--help'], { configDir });
  expect(help.code).toBe(0);
  return help.stdout.split('\n').filter((l) => l.trim().startsWith('$ vouchers ')).map((l) => l.trim().slice('$ vouchers '.length));
}

/** Split a line the way sh does for these examples: spaces, '…' quoting, and a final `< file`. */
function shellSplit(line: string): { argv: string[]; stdinFile?: string } {
  const argv: string[] = [];
  let stdinFile: string | undefined;
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  const tokens = [...line.matchAll(re)].map((m) => m[1] ?? m[2] ?? m[3]!);
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === '<') stdinFile = tokens[++i];
    else argv.push(tokens[i]!);
  }
  return { argv, stdinFile };
}

describe('api and sign --help examples', () => {
  for (const command of ['api', 'sign']) {
    it(`every \`vouchers ${command}\` example works against the sandbox`, async () => {
      const lines = await examples(command);
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) {
        const { argv, stdinFile } = shellSplit(line);
        const stdin = stdinFile === undefined ? undefined : { 'payout.json': PAYOUT, 'order.json': ORDER }[stdinFile];
        const r = await runCli(argv, { configDir, cwd, stdin, env: { NO_COLOR: '1' } });
        expect(r.code, `vouchers ${line}\n${r.stderr}`).toBe(0);
      }
    });
  }

  it('orders only products the sandbox has', async () => {
    const products = new Set(Object.keys(sb.state.products ?? {}));
    const list = await runCli(['api', 'GET', '/products'], { configDir });
    for (const p of (JSON.parse(list.stdout) as { data: { product_id: string }[] }).data) products.add(p.product_id);
    const named = [...(await examples('api')), ...(await examples('sign'))].flatMap((l) => [...l.matchAll(/"product_id":"([^"]+)"/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    for (const id of named) expect(products, id).toContain(id);
  });
});
