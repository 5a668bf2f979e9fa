/**
 * A check that fails on an answer another check already had (the product look-up that every
 * order check shares, made once per run) names that answer's trace ID too: a failure with no
 * trace ID gives support nothing to find.
 */
import { describe, expect, it } from 'vitest';
import { requireProduct } from '../../src/certify/checks/support.js';
import type { CheckContext, CheckDef } from '../../src/certify/types.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { runChecks } from './helpers.js';

/** Every request answered 503 by the sandbox's fault injection, with no retry. */
function failing(client: ApiClient): ApiClient {
  return {
    ...client,
    request: (o) => client.request({ ...o, maxRetries: 0, headers: { ...o.headers, 'X-Sandbox-Simulate': 'server_error' } }),
  };
}

const lookingUp = (id: string): CheckDef => ({
  id,
  title: id,
  proves: 'the instant product can be looked up',
  run: async (ctx: CheckContext) => {
    await requireProduct({ ...ctx, client: failing(ctx.client) }, 'instant');
  },
});

describe('a failure shared by checks', () => {
  it('each check failed on the shared look-up names its trace ID, also the ones that made no request of their own', async () => {
    const run = await runChecks([lookingUp('orders.first'), lookingUp('orders.second')]);
    const [first, second] = [run.result('orders.first'), run.result('orders.second')];
    expect(first.status).toBe('fail');
    expect(second.status).toBe('fail');
    expect(second.message).toBe(first.message);
    expect(first.trace_ids).toHaveLength(1);
    expect(first.trace_ids[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(second.trace_ids).toEqual(first.trace_ids);
  });
});
