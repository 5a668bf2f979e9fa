import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { hmac, orderEvent, SECRET } from '../listener/deliveries.js';

const NOW = 1_795_000_000;
const clock = { now: () => NOW * 1000, sleep: async () => undefined };
const overrides = { clock };

function bodyFile(content: string): { dir: string; file: string } {
  const dir = tempConfigDir();
  const file = join(dir, 'body.json');
  writeFileSync(file, content);
  return { dir, file };
}

const BODY = JSON.stringify(orderEvent(1)) + '\n';

describe('vouchers webhooks verify', () => {
  it('says valid (exit 0) for a correct signature, naming the event', async () => {
    const { file } = bodyFile(BODY);
    const sig = `t=${NOW - 10},v1=${hmac(SECRET, NOW - 10, BODY)}`;
    const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET], { overrides });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^valid: signed at \d+, 10 s ago \(order\.created evt_\S+\)\n$/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('accepts one matching v1 among several, and reads the body from stdin', async () => {
    const sig = `t=${NOW},v1=${hmac('whsec_old', NOW, BODY)},v1=${hmac(SECRET, NOW, BODY)}`;
    const r = await runCli(['webhooks', 'verify', '--body', '-', '--signature', sig, '--secret', SECRET, '--json'], {
      overrides,
      stdin: BODY,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true, timestamp: NOW, age_seconds: 0, event: 'order.created' });
  });

  it('says exactly why not, with exit 5 and the code and reason the listener refuses it with: tampered body, wrong secret, old and future timestamps, malformed header', async () => {
    const { file } = bodyFile(BODY);
    const good = hmac(SECRET, NOW, BODY);
    const cases: [string, RegExp, string, string][] = [
      [
        `t=${NOW},v1=${hmac(SECRET, NOW, BODY.replace('25', '26'))}`,
        /no v1 signature matches: are you passing the raw request body/,
        'INVALID_SIGNATURE',
        'no_match',
      ],
      [`t=${NOW},v1=${hmac('whsec_other', NOW, BODY)}`, /no v1 signature matches/, 'INVALID_SIGNATURE', 'no_match'],
      [
        `t=${NOW - 600},v1=${hmac(SECRET, NOW - 600, BODY)}`,
        /timestamp \d+ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\) is 600 s \(10m\) old, beyond the 300 s \(5m\) window/,
        'TIMESTAMP_OUT_OF_WINDOW',
        'timestamp_too_old',
      ],
      [
        `t=${NOW + 600},v1=${hmac(SECRET, NOW + 600, BODY)}`,
        /600 s \(10m\) in the future/,
        'TIMESTAMP_OUT_OF_WINDOW',
        'timestamp_in_future',
      ],
      [`v1=${good}`, /has no t=<timestamp>/, 'INVALID_SIGNATURE', 'malformed_header'],
    ];
    for (const [sig, message, code, reason] of cases) {
      const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET], { overrides });
      expect(r.code, sig).toBe(5);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(new RegExp(`\\n  code\\s+${code}\\n`));
      expect(r.stdout).toBe('');
      const json = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET, '--json'], { overrides });
      expect(json.code, sig).toBe(5);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: { code }, reason, status: 401 });
    }
    const json = await runCli(
      [
        'webhooks',
        'verify',
        '--body',
        file,
        '--signature',
        `t=${NOW - 600},v1=${hmac(SECRET, NOW - 600, BODY)}`,
        '--secret',
        SECRET,
        '--json',
      ],
      { overrides },
    );
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'TIMESTAMP_OUT_OF_WINDOW', name: 'TimestampOutOfWindow' },
      reason: 'timestamp_too_old',
    });
  });

  it('refuses, as the listener does, a correctly signed body that is not JSON or not an event envelope, or is over 1 MiB', async () => {
    for (const [body, message, reason, code] of [
      [
        '{"event":',
        /body is not valid JSON .*the signature matched, so the sender signed malformed JSON/,
        'malformed_body',
        'MALFORMED_REQUEST',
      ],
      [
        '{"hello":"world"}',
        /body is not an event envelope \(expected .*\): event, event_id, created_at and data are missing$/,
        'not_envelope',
        'MALFORMED_REQUEST',
      ],
      [`{"pad":"${'x'.repeat(1024 * 1024)}"}`, /body of \d+ bytes is over the 1048576-byte limit/, 'too_large', 'PAYLOAD_TOO_LARGE'],
    ] as const) {
      const { file } = bodyFile(body);
      const sig = `t=${NOW},v1=${hmac(SECRET, NOW, body)}`;
      const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET, '--json'], { overrides });
      expect(r.code, reason).toBe(5);
      expect(r.stdout).toBe('');
      const error = JSON.parse(r.stderr) as { error: { code: string; message: string }; reason: string };
      expect(error.error.message).toMatch(message);
      expect(error).toMatchObject({ error: { code }, reason });
    }
  });

  it('a signed body that is not an event envelope is said in words: what was expected and what was received', async () => {
    const expected = 'a JSON object with event, event_id and created_at (strings) and data (an object)';
    for (const [body, said] of [
      ['[]', `body is not an event envelope: expected ${expected}, received an array`],
      ['"x"', `body is not an event envelope: expected ${expected}, received a string`],
      ['{}', `body is not an event envelope (expected ${expected}): event, event_id, created_at and data are missing`],
      [
        '{"event":"order.created","event_id":5,"created_at":"2026-11-22T09:30:00Z","data":[]}',
        `body is not an event envelope (expected ${expected}): event_id is a number, not a string; data is an array, not an object`,
      ],
    ] as const) {
      const { file } = bodyFile(body);
      const sig = `t=${NOW},v1=${hmac(SECRET, NOW, body)}`;
      const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET], {
        overrides,
        env: { NO_COLOR: '1' },
      });
      expect(r.code, body).toBe(5);
      expect(r.stderr, body).toContain(said);
      expect(r.stderr, body).not.toMatch(/Invalid input|received undefined/);
    }
  });

  it('a malformed or empty --signature says what the header looks like and where it comes from', async () => {
    const { file } = bodyFile(BODY);
    for (const sig of ['garbage', `X-Webhook-Signature: t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`, `t=${NOW}`, '']) {
      const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET], { overrides });
      expect(r.code, sig).toBe(5);
      expect(r.stderr, sig).toMatch(/hint\s+pass --signature the value of the X-Webhook-Signature header your endpoint received/);
      expect(r.stderr, sig).toContain('"t=<unix seconds>,v1=<hex>"');
      const json = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET, '--json'], { overrides });
      expect((JSON.parse(json.stderr) as { error: { hint?: string } }).error.hint, sig).toContain('X-Webhook-Signature header');
    }
  });

  it('--tolerance widens the window to check a saved delivery', async () => {
    const { file } = bodyFile(BODY);
    const sig = `t=${NOW - 3600},v1=${hmac(SECRET, NOW - 3600, BODY)}`;
    const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET, '--tolerance', '7200'], {
      overrides,
    });
    expect(r.code).toBe(0);
  });

  it('checks the signature of a delivery older than the window all the same, and says both findings; a mismatch is the refusal then', async () => {
    const { file } = bodyFile(BODY);
    const old = NOW - 3600;
    const args = ['webhooks', 'verify', '--body', file, '--secret', SECRET];
    const matching = await runCli([...args, '--signature', `t=${old},v1=${hmac(SECRET, old, BODY)}`], { overrides });
    expect(matching.code).toBe(5);
    expect(matching.stderr).toMatch(
      /3600 s \(1h\) old, beyond the 300 s \(5m\) window.* The signature matches: it was signed with this secret\./,
    );
    expect(matching.stderr).toMatch(/\n {2}code\s+TIMESTAMP_OUT_OF_WINDOW\n/);
    expect(matching.stderr).toMatch(/hint\s+the listener refuses it only for its age; pass --tolerance 3600 or more/);
    const json = await runCli([...args, '--signature', `t=${old},v1=${hmac(SECRET, old, BODY)}`, '--json'], { overrides });
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'TIMESTAMP_OUT_OF_WINDOW' },
      reason: 'timestamp_too_old',
      signature_matches: true,
    });
    const other = await runCli([...args, '--signature', `t=${old},v1=${hmac('whsec_other', old, BODY)}`, '--json'], { overrides });
    expect(other.code).toBe(5);
    const error = JSON.parse(other.stderr) as { error: { code: string; message: string } };
    expect(error).toMatchObject({
      error: { code: 'INVALID_SIGNATURE' },
      reason: 'no_match',
      signature_matches: false,
      timestamp_reason: 'timestamp_too_old',
    });
    expect(error.error.message).toMatch(/no v1 signature matches.* Its timestamp is out of the window too: .*3600 s \(1h\) old/);
    expect(matching.stderr + other.stderr + json.stderr).not.toContain(SECRET);
  });

  it('a body saved with a newline or CRLF after it is refused, saying the signature matches it without them', async () => {
    const raw = BODY.trimEnd();
    const sig = `t=${NOW},v1=${hmac(SECRET, NOW, raw)}`;
    for (const [added, words] of [
      ['\n', '"\\n" (1 byte)'],
      ['\r\n', '"\\r\\n" (2 bytes)'],
      ['\n\n', '"\\n\\n" (2 bytes)'],
    ] as const) {
      const { file } = bodyFile(raw + added);
      const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET], { overrides });
      expect(r.code, words).toBe(5);
      expect(r.stderr).toContain(`no signature matches this body, but one matches it without its trailing ${words}`);
      expect(r.stderr).toMatch(/\n {2}code\s+INVALID_SIGNATURE\n/);
      expect(r.stderr).toMatch(/hint\s+save the body exactly as received, with no line ending added after it/);
      const json = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET, '--json'], { overrides });
      expect(JSON.parse(json.stderr)).toMatchObject({ reason: 'no_match', matches_without_trailing: added });
    }
    // Signed with its newline: a body without it, or with another, is a plain mismatch.
    const { file } = bodyFile(raw);
    const r = await runCli(
      ['webhooks', 'verify', '--body', file, '--signature', `t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`, '--secret', SECRET],
      {
        overrides,
      },
    );
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/no v1 signature matches: are you passing the raw request body/);
  });

  it('a mismatch hints that the secret may have been rotated and how to check with the previous one, printing no secret', async () => {
    const { file } = bodyFile(BODY);
    const sig = `t=${NOW},v1=${hmac('whsec_previous_secret', NOW, BODY)}`;
    const r = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig], {
      overrides,
      env: { VOUCHERS_WEBHOOK_SECRET: SECRET },
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /hint\s+.*signing secret may have been rotated since .*check with that one too \(--secret once for each, current and previous\)/,
    );
    expect(r.stderr).not.toContain(SECRET);
    expect(r.stderr).not.toContain('whsec_previous_secret');
    const both = await runCli(
      ['webhooks', 'verify', '--body', file, '--signature', sig, '--secret', SECRET, '--secret', 'whsec_previous_secret'],
      {
        overrides,
      },
    );
    expect(both.code).toBe(0);
  });

  it('uses VOUCHERS_WEBHOOK_SECRET; without any secret or body file, usage errors', async () => {
    const { file } = bodyFile(BODY);
    const sig = `t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`;
    expect(
      (await runCli(['webhooks', 'verify', '--body', file, '--signature', sig], { overrides, env: { VOUCHERS_WEBHOOK_SECRET: SECRET } }))
        .code,
    ).toBe(0);
    const noSecret = await runCli(['webhooks', 'verify', '--body', file, '--signature', sig], { overrides });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/no webhook signing secret/);
    const noFile = await runCli(
      ['webhooks', 'verify', '--body', join(tempConfigDir(), 'missing.json'), '--signature', sig, '--secret', SECRET],
      { overrides },
    );
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/cannot read --body .*no such file/);
  });
});

describe('vouchers webhooks sign', () => {
  it('prints the header an independent HMAC computes, one v1 per secret', async () => {
    const { file } = bodyFile(BODY);
    const r = await runCli(['webhooks', 'sign', '--body', file, '--timestamp', '1732270000', '--secret', SECRET], { overrides });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`t=1732270000,v1=${hmac(SECRET, 1732270000, BODY)}\n`);
    const two = await runCli(['webhooks', 'sign', '--body', file, '--secret', 'whsec_a', '--secret', 'whsec_b'], { overrides });
    expect(two.stdout).toBe(`t=${NOW},v1=${hmac('whsec_a', NOW, BODY)},v1=${hmac('whsec_b', NOW, BODY)}\n`);
  });

  it('--json gives the headers of a delivery; sign then verify round-trips', async () => {
    const { file } = bodyFile(BODY);
    const r = await runCli(['webhooks', 'sign', '--body', file, '--json'], { overrides, env: { VOUCHERS_WEBHOOK_SECRET: SECRET } });
    const out = JSON.parse(r.stdout);
    expect(out.headers).toMatchObject({
      'X-Webhook-Id': orderEvent(1).event_id,
      'X-Webhook-Timestamp': String(NOW),
      'X-Webhook-Signature': out.signature,
    });
    const v = await runCli(['webhooks', 'verify', '--body', file, '--signature', out.signature, '--secret', SECRET], { overrides });
    expect(v.code).toBe(0);
    // --help names the fields --json prints (a script reads them by these names).
    const help = (await runCli(['webhooks', 'sign', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(Object.keys(out)).toEqual(['timestamp', 'signature', 'headers']);
    expect(help).toContain('--json print timestamp, signature (the header value) and the headers of a delivery as JSON');
  });

  it('refuses a timestamp that is not unix seconds', async () => {
    const { file } = bodyFile(BODY);
    const r = await runCli(['webhooks', 'sign', '--body', file, '--timestamp', '2026-11-22', '--secret', SECRET]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not unix seconds/);
  });

  it('has --help with examples', async () => {
    const r = await runCli(['webhooks', 'sign', '--help']);
    expect(r.stdout).toMatch(/\$ vouchers webhooks sign --body event\.json/);
    const v = await runCli(['webhooks', 'verify', '--help']);
    expect(v.stdout).toMatch(/\$ vouchers webhooks verify --body body\.json/);
  });
});
