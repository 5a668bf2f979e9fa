/**
 * The checks that wait for a webhook delivery say so in their definition (`waitsForDelivery`):
 * the "no webhook was received" run warning counts on it. A whole run against the embedded
 * sandbox watches which checks read the listener's deliveries, and each of them must be marked,
 * and no other.
 */
import { describe, expect, it } from 'vitest';
import { CHECKLIST } from '../../src/certify/checklist.js';
import type { CertifyListener } from '../../src/certify/listener.js';
import type { CheckDef } from '../../src/certify/types.js';
import { runChecks } from './helpers.js';

/** What a check reads of the listener to wait for, or look at, the deliveries it received. */
const DELIVERY_READS = new Set<PropertyKey>(['events', 'duplicates', 'rejections', 'waitFor', 'waitForDuplicate', 'refusedForSignature']);

describe('checks that wait for a webhook delivery', () => {
  it('are every check of the checklist that reads the listener’s deliveries, and no other', async () => {
    const reading = new Set<string>();
    // Each check gets the listener through a proxy that notes what it reads.
    const watched = CHECKLIST.map((check): CheckDef => ({
      ...check,
      run: (ctx) => {
        const listener = ctx.listener;
        const spy =
          listener &&
          new Proxy(listener, {
            get(target, key, receiver): unknown {
              if (DELIVERY_READS.has(key)) reading.add(check.id);
              return Reflect.get(target, key, receiver) as unknown;
            },
          });
        return check.run({ ...ctx, listener: spy as CertifyListener | undefined });
      },
    }));
    const run = await runChecks(watched, { skip: ['target'] });
    // Every check ran to its end (its waits included), or what it reads would not all be seen.
    for (const r of run.results.filter((x) => !x.id.startsWith('target.')))
      expect(['pass', 'warn'], `${r.id}: ${r.message}`).toContain(r.status);
    const marked = CHECKLIST.filter((c) => c.waitsForDelivery === true).map((c) => c.id);
    expect(marked).toEqual(CHECKLIST.filter((c) => reading.has(c.id)).map((c) => c.id));
    expect(marked.length).toBeGreaterThan(0);
  }, 120_000);
});
