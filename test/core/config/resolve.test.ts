import { describe, expect, it } from 'vitest';
import { resolveProfile, resolveProfileName, resolveProfileUnchecked } from '../../../src/core/config/resolve.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type ConfigStore,
  type StoredProfile,
} from '../../../src/core/config/types.js';
import { ConfigError, UsageError } from '../../../src/core/errors/index.js';

/** An in-memory ConfigStore: resolution only reads. */
function memoryStore(profiles: Record<string, StoredProfile>, current?: string): ConfigStore {
  const store: ConfigStore = {
    path: '/nowhere/config.json',
    dir: '/nowhere',
    currentName: () => current,
    setCurrent: () => undefined,
    names: () => Object.keys(profiles).sort(),
    get: (n) => (Object.hasOwn(profiles, n) ? profiles[n] : undefined),
    set: () => undefined,
    remove: () => false,
    update: (change) => change(store),
  };
  return store;
}

const full: StoredProfile = {
  base_url: 'https://profile.example/api/v1',
  api_key: 'pk_profile',
  api_secret: 'sk_profile',
  webhook_secret: 'whsec_profile',
  signing: { path: 'relative' },
  limits: { orders_per_minute: 7 },
  timeout: 12_000,
  max_retries: 1,
  production: true,
  admin_url: 'http://127.0.0.1:9/admin',
  admin_token: 'adm_token',
};

const ENV_ALL = {
  VOUCHERS_BASE_URL: 'https://env.example/api/v1',
  VOUCHERS_API_KEY: 'pk_env',
  VOUCHERS_API_SECRET: 'sk_env',
  VOUCHERS_WEBHOOK_SECRET: 'whsec_env',
};

describe('resolveProfileName', () => {
  const store = memoryStore({ cur: {}, other: {}, flagged: {} }, 'cur');
  it('flag > env > current > default', () => {
    expect(resolveProfileName(store, { VOUCHERS_PROFILE: 'other' }, { profile: 'flagged' })).toEqual({ name: 'flagged', source: 'flag' });
    expect(resolveProfileName(store, { VOUCHERS_PROFILE: 'other' }, {})).toEqual({ name: 'other', source: 'env' });
    expect(resolveProfileName(store, { VOUCHERS_PROFILE: '' }, {})).toEqual({ name: 'cur', source: 'profile' });
    expect(resolveProfileName(memoryStore({}), {}, {})).toEqual({ name: 'default', source: 'default' });
  });
});

describe('resolveProfile precedence per field', () => {
  const store = memoryStore({ p: full }, 'p');

  it('profile values when nothing overrides them', () => {
    const r = resolveProfile(store, {}, {});
    expect(r).toMatchObject({
      name: 'p',
      exists: true,
      base_url: full.base_url,
      api_key: 'pk_profile',
      api_secret: 'sk_profile',
      webhook_secret: 'whsec_profile',
      signing_path: 'relative',
      limits: { orders_per_minute: 7, general_per_hour: DEFAULT_LIMITS.general_per_hour },
      timeout_ms: 12_000,
      max_retries: 1,
      production: true,
      admin_url: full.admin_url,
      admin_token: 'adm_token',
    });
    expect(r.sources).toMatchObject({
      name: 'profile',
      base_url: 'profile',
      api_key: 'profile',
      api_secret: 'profile',
      webhook_secret: 'profile',
      signing_path: 'profile',
      limits: 'profile',
      timeout_ms: 'profile',
      max_retries: 'profile',
      production: 'profile',
    });
  });

  it('env beats profile', () => {
    const r = resolveProfile(store, ENV_ALL, {});
    expect(r).toMatchObject({
      base_url: 'https://env.example/api/v1',
      api_key: 'pk_env',
      api_secret: 'sk_env',
      webhook_secret: 'whsec_env',
    });
    expect(r.sources).toMatchObject({ base_url: 'env', api_key: 'env', api_secret: 'env', webhook_secret: 'env' });
  });

  it('flags beat env and profile', () => {
    const r = resolveProfile(store, ENV_ALL, { baseUrl: 'http://127.0.0.1:8080/api/v1/', timeout: '2m', maxRetries: '0' });
    expect(r.base_url).toBe('http://127.0.0.1:8080/api/v1');
    expect(r.timeout_ms).toBe(120_000);
    expect(r.max_retries).toBe(0);
    expect(r.sources).toMatchObject({ base_url: 'flag', timeout_ms: 'flag', max_retries: 'flag' });
  });

  it('every setting has an environment variable that beats the profile (production only to mark it)', () => {
    const env = {
      VOUCHERS_SIGNING_PATH: 'full',
      VOUCHERS_LIMITS_ORDERS_PER_MINUTE: '30',
      VOUCHERS_LIMITS_GENERAL_PER_HOUR: '600',
      VOUCHERS_TIMEOUT: '45s',
      VOUCHERS_MAX_RETRIES: '5',
    };
    const r = resolveProfile(store, env, {});
    expect(r).toMatchObject({
      signing_path: 'full',
      limits: { orders_per_minute: 30, general_per_hour: 600 },
      timeout_ms: 45_000,
      max_retries: 5,
    });
    expect(r.sources).toMatchObject({
      signing_path: 'env',
      limits: 'env',
      limits_orders_per_minute: 'env',
      limits_general_per_hour: 'env',
      timeout_ms: 'env',
      max_retries: 'env',
    });
  });

  it('VOUCHERS_PRODUCTION marks a profile production but never unmarks one saved so; a bad value is an error either way', () => {
    // A leftover VOUCHERS_PRODUCTION=false must not take the confirmations off a production profile.
    const saved = resolveProfile(store, { VOUCHERS_PRODUCTION: 'false' }, {});
    expect(saved.production).toBe(true);
    expect(saved.sources.production).toBe('profile');
    const plain = (production?: boolean) => memoryStore({ p: { ...full, production } }, 'p');
    const marked = resolveProfile(plain(false), { VOUCHERS_PRODUCTION: 'true' }, {});
    expect(marked.production).toBe(true);
    expect(marked.sources.production).toBe('env');
    expect(resolveProfile(plain(undefined), { VOUCHERS_PRODUCTION: 'false' }, {}).production).toBe(false);
    expect(() => resolveProfile(store, { VOUCHERS_PRODUCTION: 'maybe' }, {})).toThrow(/VOUCHERS_PRODUCTION/);
  });

  it('flags beat env for timeout and max retries', () => {
    const r = resolveProfile(store, { VOUCHERS_TIMEOUT: '45s', VOUCHERS_MAX_RETRIES: '5' }, { timeout: '2s', maxRetries: '1' });
    expect(r).toMatchObject({ timeout_ms: 2_000, max_retries: 1 });
    expect(r.sources).toMatchObject({ timeout_ms: 'flag', max_retries: 'flag' });
  });

  it('each limit keeps its own source: one from env, the other from the profile or the default', () => {
    const r = resolveProfile(store, { VOUCHERS_LIMITS_GENERAL_PER_HOUR: '600' }, {});
    expect(r.limits).toEqual({ orders_per_minute: 7, general_per_hour: 600 });
    expect(r.sources).toMatchObject({ limits_orders_per_minute: 'profile', limits_general_per_hour: 'env', limits: 'env' });
    const d = resolveProfile(memoryStore({ p: { limits: { orders_per_minute: 9 } } }, 'p'), {}, {});
    expect(d.limits).toEqual({ orders_per_minute: 9, general_per_hour: DEFAULT_LIMITS.general_per_hour });
    expect(d.sources).toMatchObject({ limits_orders_per_minute: 'profile', limits_general_per_hour: 'default', limits: 'profile' });
  });

  it('a bad environment value is a usage error naming the variable', () => {
    for (const [name, value] of [
      ['VOUCHERS_SIGNING_PATH', 'sideways'],
      ['VOUCHERS_LIMITS_ORDERS_PER_MINUTE', '0'],
      ['VOUCHERS_LIMITS_GENERAL_PER_HOUR', 'many'],
      ['VOUCHERS_TIMEOUT', 'soon'],
      ['VOUCHERS_MAX_RETRIES', '99'],
      ['VOUCHERS_PRODUCTION', 'maybe'],
    ] as const) {
      const e = (() => {
        try {
          resolveProfile(store, { [name]: value }, {});
        } catch (x) {
          return x;
        }
      })();
      expect(e, name).toBeInstanceOf(UsageError);
      expect((e as UsageError).message, name).toContain(`${name} "${value}"`);
    }
  });

  it('defaults when neither flag, env nor profile has a value', () => {
    const r = resolveProfile(memoryStore({}), {}, {});
    expect(r).toMatchObject({
      name: 'default',
      exists: false,
      base_url: undefined,
      api_key: undefined,
      api_secret: undefined,
      webhook_secret: undefined,
      signing_path: 'full',
      limits: DEFAULT_LIMITS,
      timeout_ms: DEFAULT_TIMEOUT_MS,
      max_retries: DEFAULT_MAX_RETRIES,
      production: false,
    });
    expect(r.sources).toMatchObject({
      name: 'default',
      base_url: 'default',
      api_key: 'default',
      signing_path: 'default',
      limits: 'default',
      timeout_ms: 'default',
      max_retries: 'default',
      production: 'default',
    });
  });

  it('empty env values count as unset', () => {
    const r = resolveProfile(store, { VOUCHERS_API_KEY: '', VOUCHERS_BASE_URL: '' }, {});
    expect(r.api_key).toBe('pk_profile');
    expect(r.sources.base_url).toBe('profile');
  });
});

describe('resolveProfile errors', () => {
  const store = memoryStore({ sandbox: {}, prod: {} }, 'sandbox');

  it('an explicitly named missing profile lists the profiles', () => {
    const e = (() => {
      try {
        resolveProfile(store, {}, { profile: 'stage' });
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toContain('"stage"');
    expect((e as ConfigError).hint).toContain('prod, sandbox');
    expect(() => resolveProfile(store, { VOUCHERS_PROFILE: 'stage' }, {})).toThrow(/VOUCHERS_PROFILE/);
  });

  it('a missing named profile is refused even when env supplies the credentials: a mistyped name must not run with them', () => {
    const env = { VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's', VOUCHERS_BASE_URL: 'https://ci.example/api/v1' };
    for (const [name, via, globals] of [
      ['prdo', 'VOUCHERS_PROFILE', { env: { ...env, VOUCHERS_PROFILE: 'prdo' }, flags: {} }],
      ['prdo', '--profile', { env, flags: { profile: 'prdo' } }],
    ] as const) {
      let e: unknown;
      try {
        resolveProfile(store, globals.env, globals.flags);
      } catch (x) {
        e = x;
      }
      expect(e, via).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).message).toBe(`no profile named "${name}" (chosen by ${via})`);
      expect((e as ConfigError).hint).toBe(
        'did you mean prod? profiles: prod, sandbox; or create it: vouchers profiles add prdo --base-url URL --api-key KEY; to use the credentials of VOUCHERS_API_KEY and VOUCHERS_API_SECRET, name no profile',
      );
    }
    // No name given: the environment's credentials, as before.
    expect(resolveProfile(memoryStore({}), env, {})).toMatchObject({ exists: false, api_key: 'k' });
  });

  it('a current profile that vanished resolves empty instead of failing', () => {
    const r = resolveProfile(memoryStore({}, 'gone'), {}, {});
    expect(r).toMatchObject({ name: 'gone', exists: false });
  });

  it('rejects a base URL that is not http(s), naming where it came from', () => {
    expect(() => resolveProfile(store, { VOUCHERS_BASE_URL: 'ftp://x/api/v1' }, {})).toThrow(/VOUCHERS_BASE_URL/);
    expect(() => resolveProfile(store, {}, { baseUrl: 'not a url' })).toThrow(/--base-url/);
    expect(() => resolveProfile(memoryStore({ bad: { base_url: 'localhost:3000' } }, 'bad'), {}, {})).toThrow(ConfigError);
    // unchecked resolution leaves it for doctor to report
    expect(resolveProfileUnchecked(store, {}, { baseUrl: 'not a url' }).base_url).toBe('not a url');
  });

  it('never repeats a password given inside a base URL', () => {
    const e = (() => {
      try {
        resolveProfile(store, {}, { baseUrl: 'https://partner:hunter2pw@api.example/api/v1' });
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toContain('https://partner:***@api.example/api/v1');
    expect((e as ConfigError).message).not.toContain('hunter2pw');
  });

  it('rejects bad --timeout and --max-retries as usage errors', () => {
    expect(() => resolveProfile(store, {}, { timeout: 'soon' })).toThrow(UsageError);
    expect(() => resolveProfile(store, {}, { timeout: '0s' })).toThrow(UsageError);
    expect(() => resolveProfile(store, {}, { maxRetries: '-1' })).toThrow(UsageError);
    const e = (() => {
      try {
        resolveProfile(store, {}, { maxRetries: '21' });
      } catch (x) {
        return x;
      }
    })();
    expect((e as UsageError).hint).toMatch(/0 to 20/);
    expect(resolveProfile(store, {}, { timeout: '500ms' }).timeout_ms).toBe(500);
  });
});

describe('credentials from the environment', () => {
  it('drops the line break a shell or file left at either end; one inside is a ConfigError naming the variable, not the value', () => {
    const store = memoryStore({}, undefined);
    const env = {
      VOUCHERS_API_KEY: 'pk_test_1\n',
      VOUCHERS_API_SECRET: '\r\nsk_test_secret_0123\r\n',
      VOUCHERS_WEBHOOK_SECRET: 'whsec_test_0123\n',
    };
    const p = resolveProfileUnchecked(store, env, {});
    expect([p.api_key, p.api_secret, p.webhook_secret]).toEqual(['pk_test_1', 'sk_test_secret_0123', 'whsec_test_0123']);
    let thrown: unknown;
    try {
      resolveProfileUnchecked(store, { VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 'sk_te\nst_secret' }, {});
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toContain('VOUCHERS_API_SECRET holds a control character');
    expect((thrown as Error).message + (thrown as ConfigError).hint).not.toContain('st_secret');
  });
});
