/**
 * Deliveries that reach the listener but fail its signature check (the profile's
 * webhook_secret is not the endpoint's): webhooks.register says which secret it verifies
 * with, the webhook checks fail at once naming the cause instead of waiting out their
 * time, and the run warning names refused deliveries, not an unreachable listener.
 */
import { describe, expect, it } from 'vitest';
import { registerWebhook } from '../../src/api/webhooks.js';
import { ORDER_CHECKS } from '../../src/certify/checks/orders.js';
import { WEBHOOK_CHECKS, webhookWait } from '../../src/certify/checks/webhooks.js';
import { CHECKLIST } from '../../src/certify/checklist.js';
import { Recorder, runWarnings } from '../../src/certify/runner.js';
import type { CheckDef, CheckResult } from '../../src/certify/types.js';
import { runChecks } from './helpers.js';

const WRONG = 'whsec_wrongwrongwrongwrongwrong00';
const OLD_URL = 'http://127.0.0.1:9/hooks';
const byId = (list: readonly CheckDef[], id: string) => list.find((c) => c.id === id)!;

/** The partner's endpoint exists before the run: POST /webhooks then answers 200 without a secret. */
const EXISTING: CheckDef = {
  id: 'test.existing-endpoint',
  title: 'an endpoint registered before the run',
  proves: 'the registration is an update',
  async run(ctx) {
    await registerWebhook(ctx.client, { url: OLD_URL }, { signal: ctx.signal });
  },
};

describe('certify: webhooks that arrive but are refused for their signature', () => {
  it('register names the profile secret; the webhook checks fail at once with the cause; the warning names refused deliveries', async () => {
    const run = await runChecks(
      [
        EXISTING,
        byId(WEBHOOK_CHECKS, 'webhooks.register'),
        byId(WEBHOOK_CHECKS, 'webhooks.endpoint-2xx'),
        byId(ORDER_CHECKS, 'orders.cache-miss-webhook'),
        byId(WEBHOOK_CHECKS, 'webhooks.duplicate'),
      ],
      {
        timeoutMs: 60_000,
        context: {
          // The real server's pace: a wait would be 30 s.
          timeScale: 1,
          shared: {
            orders: [],
            refundsMinor: {},
            mayRotateSecret: false,
            knownWebhookSecret: WRONG,
            profileName: 'acme',
            existingWebhook: { state: 'registered', url: OLD_URL },
          },
        },
      },
    );
    const register = run.result('webhooks.register');
    expect(register.status).toBe('pass');
    expect(register.message).toMatch(/: HTTP 200; deliveries are verified with the profile's webhook_secret \(/);
    expect(register.message).not.toContain('the secret it returned');
    const wait = webhookWait({ timeScale: 1 } as Parameters<typeof webhookWait>[0]);
    for (const id of ['webhooks.endpoint-2xx', 'orders.cache-miss-webhook', 'webhooks.duplicate']) {
      const r = run.result(id);
      expect(r.status, id).toBe('fail');
      expect(r.message, id).toMatch(
        /^webhooks reach the listener but are refused: \d+ deliver(y|ies), none verified \(signature invalid: wrong webhook secret in the profile/,
      );
      expect(r.message, id).toContain(`vouchers --profile acme webhooks register --url ${OLD_URL} --rotate-secret`);
      expect(r.message, id).toContain('vouchers profiles set acme webhook_secret --stdin');
      expect(r.expected, id).toContain("the profile's webhook_secret");
      expect(r.actual, id).toMatch(/refused, the last: INVALID_SIGNATURE: /);
      // Failed on the refusal, not at the end of the wait.
      expect(r.duration_ms, id).toBeLessThan(wait);
    }
    expect(run.warnings.join('\n')).not.toContain('do not reach the listener');
    expect(run.warnings).toContainEqual(
      expect.stringMatching(
        /^no webhook was accepted: (the delivery|all \d+ deliveries) that reached the listener (was|were) refused, signature invalid: wrong webhook secret in the profile/,
      ),
    );
    for (const r of run.results) expect(JSON.stringify(r)).not.toContain(WRONG);
    expect(run.warnings.join('\n')).not.toContain(WRONG);
  }, 120_000);

  it('the run warning names deliveries refused for another reason, and says "not reachable" only when none arrived', () => {
    const result = (id: string, status: CheckResult['status']): CheckResult => ({
      ...{ id, title: '', proves: '', status, required: true, duration_ms: 1, message: '' },
      ...{ trace_ids: [], requests: [], warnings: [] },
    });
    const results = [result('webhooks.register', 'pass'), result('webhooks.endpoint-2xx', 'fail')];
    const base = { checks: CHECKLIST, webhooksExpected: true, eventsReceived: 0 };
    const stale = runWarnings(results, new Recorder(), { ...base, deliveriesRefused: ['TIMESTAMP_OUT_OF_WINDOW: too old'] });
    expect(stale).toEqual([
      'no webhook was accepted: the 1 delivery that reached the listener was refused (TIMESTAMP_OUT_OF_WINDOW); the last: TIMESTAMP_OUT_OF_WINDOW: too old',
    ]);
    expect(runWarnings(results, new Recorder(), { ...base, deliveriesRefused: [] })).toEqual([
      'no webhook was received at all: deliveries do not reach the listener (is the URL reachable from the server? see --public-url)',
    ]);
  });

  it('no "no webhook" warning when webhooks.register passed but no check that waits for a delivery ran (--only webhooks.register, a run cut after it)', () => {
    const result = (id: string, status: CheckResult['status']): CheckResult => ({
      ...{ id, title: '', proves: '', status, required: true, duration_ms: 1, message: '' },
      ...{ trace_ids: [], requests: [], warnings: [] },
    });
    const base = { checks: CHECKLIST, webhooksExpected: true, eventsReceived: 0 };
    expect(runWarnings([result('webhooks.register', 'pass')], new Recorder(), base)).toEqual([]);
    expect(runWarnings([result('webhooks.register', 'pass'), result('webhooks.endpoint-2xx', 'skip')], new Recorder(), base)).toEqual([]);
    for (const id of ['webhooks.duplicate', 'orders.cache-miss-webhook', 'lifecycle.admin-reject', 'lifecycle.partial'])
      expect(runWarnings([result('webhooks.register', 'pass'), result(id, 'fail')], new Recorder(), base), id).toEqual([
        'no webhook was received at all: deliveries do not reach the listener (is the URL reachable from the server? see --public-url)',
      ]);
  });
});
