/**
 * `sandbox start` flags → the options of `startSandbox`, every check done here so a bad
 * flag is a UsageError naming it (never a RangeError from the server).
 */
import { resolve } from 'node:path';
import { validateProfileName } from '../../core/config/names.js';
import { UsageError } from '../../core/errors/index.js';
import { DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT } from '../../core/net/sandbox-command.js';
import type { SigningPathVariant } from '../../core/signer/request.js';
import { SANDBOX_DIALECTS, type SandboxDialect } from '../../sandbox/options.js';
import type { StartFlags } from './index.js';
import { LOCAL_PROFILE } from './local-profile.js';

export type { StartFlags };

export interface StartOptions {
  /** The profile it writes, whose pid file and log it has (`local` unless --profile). */
  profile: string;
  port: number;
  /** --port was given: otherwise the port is the first from 4010 no other sandbox of the folder has. */
  portGiven: boolean;
  host: string;
  seed: number | undefined;
  timeScale: number | undefined;
  signingPath: SigningPathVariant;
  ordersPerMinute: number | undefined;
  generalPerHour: number | undefined;
  enablePlanned: boolean;
  /** Undefined: the state file's dialect, else `decisions`. */
  dialect: SandboxDialect | undefined;
  stateFile: string | undefined;
  faultRate: number | undefined;
  detach: boolean;
  json: boolean;
}

export { DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT };

function wholeNumber(text: string, flag: string, min: number, max: number, example: string): number {
  const t = text.trim();
  const n = /^-?\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not a whole number from ${min} to ${max}`, `e.g. ${flag} ${example}`);
  return n;
}

function decimal(text: string, flag: string, ok: (n: number) => boolean, rule: string, example: string): number {
  const t = text.trim();
  const n = /^\d+(\.\d+)?$|^\.\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag} ${JSON.stringify(text)} must be ${rule}`, `e.g. ${flag} ${example}`);
  return n;
}

/** `100/min`, `100/m` or `100` → 100 (per the unit the flag is about). */
function rate(text: string, flag: string, units: string[], example: string): number {
  const m = /^\s*(\d+)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(text);
  const unit = m?.[2]?.toLowerCase();
  if (!m || (unit !== undefined && !units.includes(unit))) {
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not a rate limit`, `write it as ${example} (or just the number)`);
  }
  const n = Number(m[1]);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) {
    const per = example.split('/')[1];
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not a rate limit from 1 to 1000000/${per}`, `e.g. ${flag} ${example}`);
  }
  return n;
}

function dialect(text: string | undefined): SandboxDialect | undefined {
  if (text === undefined) return undefined;
  const d = text.trim().toLowerCase();
  if (!(SANDBOX_DIALECTS as readonly string[]).includes(d)) {
    throw new UsageError(
      `--dialect ${JSON.stringify(text)} is not a sandbox dialect`,
      'use --dialect decisions (our guesses, the default) or --dialect document (the API document, other guesses where it shows nothing)',
    );
  }
  return d as SandboxDialect;
}

/** `profile`: the root's --profile, when given (`sandbox start --profile NAME`). */
export function buildStartOptions(flags: Partial<StartFlags>, cwd: string, profile?: string): StartOptions {
  const signingPath = (flags.signingPath ?? 'full').trim().toLowerCase();
  if (signingPath !== 'full' && signingPath !== 'relative') {
    throw new UsageError(
      `--signing-path ${JSON.stringify(flags.signingPath)} is not a signing variant`,
      'use --signing-path full (with /api/v1 and the query) or --signing-path relative',
    );
  }
  const host = (flags.host ?? DEFAULT_SANDBOX_HOST).trim();
  if (!host) throw new UsageError('--host is empty', `e.g. --host ${DEFAULT_SANDBOX_HOST}`);
  return {
    profile: profile === undefined ? LOCAL_PROFILE : validateProfileName(profile),
    portGiven: flags.port !== undefined,
    port: flags.port === undefined ? DEFAULT_SANDBOX_PORT : wholeNumber(flags.port, '--port', 0, 65535, '4010 (0 picks a free port)'),
    host,
    seed: flags.seed === undefined ? undefined : wholeNumber(flags.seed, '--seed', 0, 2 ** 31 - 1, '42'),
    timeScale:
      flags.timeScale === undefined
        ? undefined
        : decimal(flags.timeScale, '--time-scale', (n) => n > 0 && n <= 1000, 'a number above 0 (0.1 is ten times faster)', '0.1'),
    signingPath,
    ordersPerMinute:
      flags.limitOrders === undefined ? undefined : rate(flags.limitOrders, '--limit-orders', ['min', 'm', 'minute'], '100/min'),
    generalPerHour:
      flags.limitGeneral === undefined ? undefined : rate(flags.limitGeneral, '--limit-general', ['h', 'hour', 'hr'], '1000/h'),
    enablePlanned: Boolean(flags.enablePlanned),
    dialect: dialect(flags.dialect),
    stateFile: flags.state === undefined ? undefined : resolve(cwd, flags.state),
    faultRate:
      flags.faultRate === undefined
        ? undefined
        : decimal(flags.faultRate, '--fault-rate', (n) => n >= 0 && n <= 1, 'a share from 0 to 1', '0.05'),
    detach: Boolean(flags.detach),
    json: Boolean(flags.json),
  };
}

/** The same flags again, for the detached copy (absolute state path, no --detach). */
export function childArgs(o: StartOptions): string[] {
  const args = ['sandbox', 'start', '--profile', o.profile, '--port', String(o.port), '--host', o.host, '--signing-path', o.signingPath];
  if (o.seed !== undefined) args.push('--seed', String(o.seed));
  if (o.timeScale !== undefined) args.push('--time-scale', String(o.timeScale));
  if (o.ordersPerMinute !== undefined) args.push('--limit-orders', `${o.ordersPerMinute}/min`);
  if (o.generalPerHour !== undefined) args.push('--limit-general', `${o.generalPerHour}/h`);
  if (o.enablePlanned) args.push('--enable-planned');
  if (o.dialect !== undefined) args.push('--dialect', o.dialect);
  if (o.stateFile !== undefined) args.push('--state', o.stateFile);
  if (o.faultRate !== undefined) args.push('--fault-rate', String(o.faultRate));
  return args;
}
