/**
 * A product id the server says does not exist: "did you mean sbx-instant?" from one GET
 * /products asked after that answer (never before an order), once for a bulk file however
 * many of its rows name the slip; the order is never retried nor changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { fastSandbox, orderCount, profileDir, quickClock } from './orders-helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await fastSandbox();
});
afterAll(async () => {
  await sb.close();
});

/** The requests of the log, in order: "METHOD path". */
const requests = (dir: string) =>
  readFileSync(join(dir, 'requests.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { method?: string; path?: string; sending?: true })
    // A keyed write is logged as it leaves, then with its answer: one request.
    .filter((l) => l.method !== undefined && !l.sending)
    .map((l) => `${l.method} ${l.path}`);

describe('a product id slipped', () => {
  it('products get names the product it likely is', async () => {
    const dir = await profileDir(sb, 'default');
    const r = await runCli(['products', 'get', 'sbx-instan'], { configDir: dir });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('hint      did you mean sbx-instant? check the id:');
    expect(requests(dir)).toEqual(['GET /products/sbx-instan', 'GET /products']);
    // Nothing near: the hint as it was, still one look-up.
    const far = await runCli(['products', 'get', 'no-such-thing-at-all'], { configDir: dir });
    expect(far.stderr).not.toContain('did you mean');
  });

  it('orders create: asked after the refusal, the order neither retried nor changed; a known product asks nothing more', async () => {
    const dir = await profileDir(sb, 'default');
    const before = orderCount(sb);
    const r = await runCli(['orders', 'create', '--product', 'sbx-instnt', '--denomination', '25'], {
      configDir: dir,
      overrides: { clock: quickClock() },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('hint      did you mean sbx-instant? check the product id:');
    expect(requests(dir)).toEqual(['POST /orders', 'GET /products']);
    expect(orderCount(sb)).toBe(before);
    writeFileSync(join(dir, 'requests.log'), '');
    const ok = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], {
      configDir: dir,
      overrides: { clock: quickClock() },
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(requests(dir)).not.toContain('GET /products');
  });

  it('a bulk file asks once for every row of the same slip', async () => {
    const dir = await profileDir(sb, 'default');
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-instnt,25,1,r1\nsbx-instnt,10,1,r2\nsbx-instant,10,1,r3\n');
    const before = orderCount(sb);
    const r = await runCli(['orders', 'create', '--from', file, '--yes'], { configDir: dir, overrides: { clock: quickClock() } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('line 2: product "sbx-instnt" does not exist (did you mean sbx-instant?)');
    expect(r.stderr).toContain('line 3: product "sbx-instnt" does not exist (did you mean sbx-instant?)');
    expect(requests(dir).filter((q) => q === 'GET /products')).toHaveLength(1);
    expect(orderCount(sb)).toBe(before);
  });
});
